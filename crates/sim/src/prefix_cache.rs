//! The prefix cache: chained block hashes and an LRU set of cached blocks.
//!
//! A prompt is cut into full blocks of `block_size` token ids; block `i`'s hash covers block
//! `i - 1`'s hash and its own ids, so equal hashes mean equal prefixes (vLLM's scheme). The
//! partial last block is never cached.

use std::collections::{BTreeMap, HashMap};
use std::hash::{DefaultHasher, Hash, Hasher};

/// Chained hashes of the full blocks of `tokens`.
pub(crate) fn block_hashes(tokens: &[u32], block_size: usize) -> Vec<u64> {
    let mut prev = 0u64;
    tokens
        .chunks_exact(block_size.max(1))
        .map(|block| {
            let mut h = DefaultHasher::new();
            prev.hash(&mut h);
            block.hash(&mut h);
            prev = h.finish();
            prev
        })
        .collect()
}

/// An LRU set of block hashes bounded by a capacity in blocks.
#[derive(Debug)]
pub(crate) struct PrefixCache {
    capacity: usize,
    clock: u64,
    /// Block hash -> last use.
    last_use: HashMap<u64, u64>,
    /// Last use -> block hash, oldest first.
    by_age: BTreeMap<u64, u64>,
}

impl PrefixCache {
    /// An empty cache holding at most `capacity` blocks.
    pub(crate) fn new(capacity: usize) -> Self {
        PrefixCache {
            capacity,
            clock: 0,
            last_use: HashMap::new(),
            by_age: BTreeMap::new(),
        }
    }

    /// Number of leading `hashes` present; those blocks become most recently used.
    pub(crate) fn lookup(&mut self, hashes: &[u64]) -> usize {
        let hits = hashes
            .iter()
            .take_while(|h| self.last_use.contains_key(h))
            .count();
        for &hash in &hashes[..hits] {
            self.touch(hash);
        }
        hits
    }

    /// Inserts (or refreshes) `hashes`, evicting the least recently used beyond capacity.
    pub(crate) fn insert(&mut self, hashes: &[u64]) {
        if self.capacity == 0 {
            return;
        }
        for &hash in hashes {
            self.touch(hash);
        }
        while self.last_use.len() > self.capacity {
            let Some((_, oldest)) = self.by_age.pop_first() else {
                break;
            };
            self.last_use.remove(&oldest);
        }
    }

    /// Number of cached blocks.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.last_use.len()
    }

    fn touch(&mut self, hash: u64) {
        self.clock += 1;
        if let Some(old) = self.last_use.insert(hash, self.clock) {
            self.by_age.remove(&old);
        }
        self.by_age.insert(self.clock, hash);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_cover_full_blocks_and_chain() {
        let a = block_hashes(&[1, 2, 3, 4, 5, 6, 7], 2);
        assert_eq!(a.len(), 3);
        let b = block_hashes(&[1, 2, 3, 4, 9, 9], 2);
        assert_eq!(a[..2], b[..2]);
        assert_ne!(a[2], b[2]);
        // Same block content after a different prefix hashes differently.
        let c = block_hashes(&[0, 0, 3, 4], 2);
        assert_ne!(a[1], c[1]);
        assert!(block_hashes(&[1], 2).is_empty());
    }

    #[test]
    fn lookup_counts_leading_blocks_only() {
        let mut cache = PrefixCache::new(10);
        cache.insert(&[1, 2, 3]);
        assert_eq!(cache.lookup(&[1, 2, 3, 4]), 3);
        assert_eq!(cache.lookup(&[1, 9, 3]), 1);
        assert_eq!(cache.lookup(&[9, 1]), 0);
        assert_eq!(cache.lookup(&[]), 0);
    }

    #[test]
    fn evicts_least_recently_used() {
        let mut cache = PrefixCache::new(3);
        cache.insert(&[1, 2, 3]);
        assert_eq!(cache.lookup(&[1]), 1); // 1 is now the most recent: order 2, 3, 1
        cache.insert(&[4]); // evicts 2
        assert_eq!(cache.len(), 3);
        assert_eq!(cache.lookup(&[2]), 0);
        assert_eq!(cache.lookup(&[1]), 1);
        assert_eq!(cache.lookup(&[3]), 1);
        assert_eq!(cache.lookup(&[4]), 1);
        cache.insert(&[5, 6]); // evicts 1 then 3 (order was 1, 3, 4)
        assert_eq!(cache.lookup(&[1]), 0);
        assert_eq!(cache.lookup(&[3]), 0);
        assert_eq!(cache.lookup(&[4]), 1);
    }

    #[test]
    fn zero_capacity_caches_nothing() {
        let mut cache = PrefixCache::new(0);
        cache.insert(&[1, 2]);
        assert_eq!(cache.len(), 0);
        assert_eq!(cache.lookup(&[1]), 0);
    }
}
