//! The issuer of a certificate, as `CN=..., O=...`, read from its DER: enough of X.509 to
//! walk to the issuer name and pick two attributes out of it. Hand-written: one name for
//! one error message does not justify an X.509 parser's nine crates.

/// The issuer's common name and organization of the DER certificate `cert`, as
/// `CN=name, O=org` (what there is of them); `None` when it cannot be read.
pub(super) fn issuer_common_name(cert: &[u8]) -> Option<String> {
    let (_, certificate, _) = tlv(cert)?;
    let (_, tbs, _) = tlv(certificate)?;
    let (tag, _, mut rest) = tlv(tbs)?;
    if tag == 0xA0 {
        // The version came first; skip the serial number after it.
        rest = tlv(rest)?.2;
    }
    let (_, _, rest) = tlv(rest)?; // the signature algorithm
    let (_, mut name, _) = tlv(rest)?;
    let (mut cn, mut org) = (None, None);
    while !name.is_empty() {
        let (_, set, next) = tlv(name)?;
        name = next;
        let (_, pair, _) = tlv(set)?;
        let (_, oid, value) = tlv(pair)?;
        let (_, text, _) = tlv(value)?;
        let text = String::from_utf8_lossy(text).into_owned();
        match oid {
            [0x55, 0x04, 0x03] => cn = Some(text),
            [0x55, 0x04, 0x0A] => org = Some(text),
            _ => {}
        }
    }
    let parts: Vec<String> = [("CN", cn), ("O", org)]
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| format!("{k}={v}")))
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The first DER element of `buf`: its tag, its content and what follows it.
fn tlv(buf: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = buf.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7F);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n]
            .iter()
            .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
        (len, &rest[n..])
    };
    (rest.len() >= len).then(|| (tag, &rest[..len], &rest[len..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_nothing_from_garbage() {
        assert_eq!(issuer_common_name(&[]), None);
        assert_eq!(issuer_common_name(&[0x30, 0x85, 1, 2]), None);
        assert_eq!(issuer_common_name(&[0x30, 0x03, 0x30, 0x01]), None);
    }
}
