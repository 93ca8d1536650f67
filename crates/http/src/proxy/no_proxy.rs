//! `NO_PROXY`: the origins that bypass a proxy, as curl and its peers read the list: comma-
//! or space-separated entries, each a host name (itself and every subdomain: `corp.example`
//! and `.corp.example` alike), an IP address, a CIDR range (matched against hosts written as
//! addresses: no name is resolved to decide), any of these with `:port` (then only that
//! port), or `*` (every origin). Hand-written: hyper-util's matcher has no `host:port`
//! entries, and this is forty lines.

use std::net::IpAddr;

/// A parsed `NO_PROXY` list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NoProxy(Vec<Rule>);

/// One entry, and the port it is limited to.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Rule {
    host: Host,
    port: Option<u16>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Host {
    All,
    /// Lower case, without a leading dot.
    Domain(String),
    Net(IpAddr, u8),
}

impl NoProxy {
    /// Parses `list`; entries it cannot read are left out.
    pub fn parse(list: &str) -> NoProxy {
        NoProxy(
            list.split([',', ' '])
                .map(str::trim)
                .filter(|e| !e.is_empty())
                .filter_map(Rule::parse)
                .collect(),
        )
    }

    /// Whether `host:port` bypasses the proxy.
    pub fn matches(&self, host: &str, port: u16) -> bool {
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let ip: Option<IpAddr> = host.parse().ok();
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.0.iter().any(|r| {
            r.port.is_none_or(|p| p == port)
                && match &r.host {
                    Host::All => true,
                    Host::Domain(d) => {
                        host == *d
                            || host
                                .strip_suffix(d.as_str())
                                .is_some_and(|rest| rest.ends_with('.'))
                    }
                    Host::Net(net, bits) => ip.is_some_and(|ip| in_net(ip, *net, *bits)),
                }
        })
    }
}

impl Rule {
    fn parse(entry: &str) -> Option<Rule> {
        if entry == "*" {
            return Some(Rule {
                host: Host::All,
                port: None,
            });
        }
        let (host, port) = split_port(entry);
        let host = if let Some((addr, bits)) = host.split_once('/') {
            let addr: IpAddr = addr.parse().ok()?;
            let max = if addr.is_ipv4() { 32 } else { 128 };
            Host::Net(addr, bits.parse().ok().filter(|b| *b <= max)?)
        } else if let Ok(addr) = host.parse::<IpAddr>() {
            Host::Net(addr, if addr.is_ipv4() { 32 } else { 128 })
        } else {
            let d = host.trim_start_matches('*').trim_start_matches('.');
            Host::Domain(d.trim_end_matches('.').to_ascii_lowercase())
        };
        Some(Rule { host, port })
    }
}

/// `host` and its port, for `host:port`, `[v6]:port` and `[v6]`; a bare IPv6 address has
/// no port.
fn split_port(entry: &str) -> (&str, Option<u16>) {
    if let Some(rest) = entry.strip_prefix('[') {
        return match rest.split_once(']') {
            Some((host, tail)) => (host, tail.strip_prefix(':').and_then(|p| p.parse().ok())),
            None => (rest, None),
        };
    }
    match entry.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') => match port.parse() {
            Ok(p) => (host, Some(p)),
            Err(_) => (entry, None),
        },
        _ => (entry, None),
    }
}

/// Whether `ip` lies in `net/bits` (an IPv4 address never lies in an IPv6 range).
fn in_net(ip: IpAddr, net: IpAddr, bits: u8) -> bool {
    let (a, b, width) = match (ip, net) {
        (IpAddr::V4(a), IpAddr::V4(b)) => (u128::from(a.to_bits()), u128::from(b.to_bits()), 32),
        (IpAddr::V6(a), IpAddr::V6(b)) => (a.to_bits(), b.to_bits(), 128),
        _ => return false,
    };
    let shift = width - u32::from(bits);
    shift >= width || (a >> shift) == (b >> shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_suffixes_addresses_ranges_ports_and_all() {
        let n = NoProxy::parse(
            "corp.example, .internal,10.0.0.0/8 192.168.1.7,localhost:8080,[::1]:9000,fd00::/8",
        );
        let cases = [
            ("corp.example", 443, true),
            ("api.corp.example", 80, true),
            ("API.Corp.Example.", 80, true),
            ("notcorp.example", 80, false),
            ("internal", 80, true),
            ("gpu.internal", 80, true),
            ("10.1.2.3", 8000, true),
            ("11.1.2.3", 8000, false),
            ("192.168.1.7", 1, true),
            ("192.168.1.8", 1, false),
            ("localhost", 8080, true),
            ("localhost", 8081, false),
            ("[::1]", 9000, true),
            ("::1", 9001, false),
            ("fd12::5", 80, true),
            ("fe80::1", 80, false),
            ("example.com", 443, false),
        ];
        for (host, port, bypass) in cases {
            assert_eq!(n.matches(host, port), bypass, "{host}:{port}");
        }
        assert!(NoProxy::parse("*").matches("anything.at.all", 1));
        assert!(!NoProxy::parse("").matches("example.com", 443));
    }

    #[test]
    fn an_ipv4_address_is_not_in_an_ipv6_range() {
        assert!(!NoProxy::parse("::/0").matches("10.0.0.1", 80));
        assert!(NoProxy::parse("0.0.0.0/0").matches("10.0.0.1", 80));
    }
}
