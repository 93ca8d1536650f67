//! The last line of defence for secrets: every log line and the final error message pass
//! through [`Redactions`], which the run fills with every endpoint's secrets once the plan
//! knows them. The places that handle server text scrub it themselves; this catches what
//! they miss.

use std::borrow::Cow;
use std::sync::{Arc, PoisonError, RwLock};

use plateau_model::secret::{self, Secret};

/// The secrets scrubbed from everything printed; shared by the log writer and `main`.
#[derive(Clone, Default)]
pub struct Redactions(Arc<RwLock<Vec<Secret>>>);

impl Redactions {
    /// Adds `secrets` to what is scrubbed.
    pub fn add(&self, secrets: impl IntoIterator<Item = Secret>) {
        self.0
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(secrets);
    }

    /// `text` with every secret replaced by `***`.
    pub fn scrub<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let secrets = self.0.read().unwrap_or_else(PoisonError::into_inner);
        secret::scrub(&secrets, text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrubs_what_was_added() {
        let r = Redactions::default();
        assert_eq!(r.scrub("key sk-1234"), "key sk-1234");
        r.clone().add([Secret::new("sk-1234")]);
        assert_eq!(r.scrub("key sk-1234"), "key ***");
    }
}
