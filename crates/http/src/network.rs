//! How connections reach each origin ([`Network`]): through which proxy (an endpoint's
//! own choice, else the environment's: [`ProxyChoice`]) and with which TLS configuration
//! (an endpoint's own [`TlsSettings`], else the defaults), decided when the client is built
//! and looked up per origin (`Route`) as connections open. Without any proxy or endpoint
//! setting every origin shares one route, found without a lock.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use http::{HeaderValue, Uri};
use rustls::ClientConfig;
use tokio_rustls::TlsConnector;

use crate::proxy::{Proxies, Proxy};
use crate::tls::{self, Roots, TlsError, TlsSettings};

/// Where connections go: scheme, host and port.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Origin {
    pub(crate) https: bool,
    pub(crate) host: String,
    pub(crate) port: u16,
}

impl Origin {
    /// The origin of `uri`; `None` without a host.
    pub(crate) fn of(uri: &Uri) -> Option<Origin> {
        let https = uri.scheme_str() == Some("https");
        let host = uri.host()?.trim_start_matches('[').trim_end_matches(']');
        let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        Some(Origin {
            https,
            host: host.to_owned(),
            port,
        })
    }
}

/// Which proxy an endpoint goes through.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ProxyChoice {
    /// The environment's (`HTTPS_PROXY`, `NO_PROXY`, ...).
    #[default]
    Environment,
    /// None, whatever the environment says.
    Direct,
    /// This one, whatever the environment says.
    Via(Proxy),
}

/// An endpoint's network settings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EndpointNet {
    /// Its proxy.
    pub proxy: ProxyChoice,
    /// Its TLS settings.
    pub tls: TlsSettings,
}

/// How connections to one origin are made.
pub(crate) struct Route {
    /// The proxy they go through.
    pub(crate) proxy: Option<Proxy>,
    /// The TLS configuration of https connections.
    pub(crate) tls: TlsConnector,
    /// The name the certificate is checked against, instead of the host.
    pub(crate) server_name: Option<String>,
}

impl Route {
    /// For a plain-http origin through an HTTP proxy without a tunnel: requests go to the
    /// proxy in absolute form, with this `Proxy-Authorization` (if any).
    pub(crate) fn forward(&self, https: bool) -> Option<Option<HeaderValue>> {
        let p = self.proxy.as_ref()?;
        (p.kind == crate::proxy::Kind::Http && !p.tunnels(https)).then(|| p.authorization())
    }
}

/// What an endpoint set, by origin.
struct Own {
    proxy: ProxyChoice,
    tls: Arc<ClientConfig>,
    server_name: Option<String>,
}

/// The routes of a client.
pub struct Network {
    proxies: Proxies,
    default_tls: Arc<ClientConfig>,
    own: HashMap<Origin, Own>,
    /// Every origin's route when nothing varies by origin.
    shared: Option<Arc<Route>>,
    routes: Mutex<HashMap<Origin, Arc<Route>>>,
}

impl Network {
    /// Origins reached directly, with the default TLS configuration over `roots`.
    pub fn direct(roots: &Roots) -> Result<Network, TlsError> {
        Network::new(Proxies::none(), roots, &[])
    }

    /// The environment's `proxies` for every origin, and each endpoint's own settings for
    /// the origin of its base URL, over `roots`.
    pub fn new(
        proxies: Proxies,
        roots: &Roots,
        endpoints: &[(Uri, EndpointNet)],
    ) -> Result<Network, TlsError> {
        let default_tls = tls::config(&TlsSettings::default(), roots)?;
        let mut own = HashMap::new();
        for (uri, net) in endpoints {
            let Some(origin) = Origin::of(uri) else {
                continue;
            };
            let tls = if net.tls == TlsSettings::default() {
                default_tls.clone()
            } else {
                tls::config(&net.tls, roots)?
            };
            own.insert(
                origin,
                Own {
                    proxy: net.proxy.clone(),
                    tls,
                    server_name: net.tls.server_name.clone(),
                },
            );
        }
        let nothing_varies = proxies == Proxies::none()
            && own.values().all(|o| {
                !matches!(o.proxy, ProxyChoice::Via(_))
                    && Arc::ptr_eq(&o.tls, &default_tls)
                    && o.server_name.is_none()
            });
        let shared = nothing_varies.then(|| {
            Arc::new(Route {
                proxy: None,
                tls: TlsConnector::from(default_tls.clone()),
                server_name: None,
            })
        });
        Ok(Network {
            proxies,
            default_tls,
            own,
            shared,
            routes: Mutex::default(),
        })
    }

    /// The route to `origin`.
    pub(crate) fn route(&self, origin: &Origin) -> Arc<Route> {
        if let Some(route) = &self.shared {
            return route.clone();
        }
        let mut routes = self.routes.lock().unwrap_or_else(PoisonError::into_inner);
        routes
            .entry(origin.clone())
            .or_insert_with(|| Arc::new(self.decide(origin)))
            .clone()
    }

    fn decide(&self, origin: &Origin) -> Route {
        let env = || {
            self.proxies
                .for_origin(origin.https, &origin.host, origin.port)
                .cloned()
        };
        match self.own.get(origin) {
            Some(own) => Route {
                proxy: match &own.proxy {
                    ProxyChoice::Environment => env(),
                    ProxyChoice::Direct => None,
                    ProxyChoice::Via(p) => Some(p.clone()),
                },
                tls: TlsConnector::from(own.tls.clone()),
                server_name: own.server_name.clone(),
            },
            None => Route {
                proxy: env(),
                tls: TlsConnector::from(self.default_tls.clone()),
                server_name: None,
            },
        }
    }

    /// The proxy requests to `uri` go through, shown without credentials.
    pub fn proxy_for(&self, uri: &Uri) -> Option<String> {
        let origin = Origin::of(uri)?;
        self.route(&origin).proxy.as_ref().map(Proxy::shown)
    }
}
