//! How long a capacity probe measures. A rate above capacity by a fraction `d` grows the
//! queue by `d x rate` requests a second; Poisson arrivals blur a count of `rate x w` by
//! `sqrt(rate x w)`, so the growth shows over `w` seconds only when `d x rate x w` stands
//! [`QUEUE_Z`] of those above the noise: `w >= QUEUE_Z^2 / (d^2 x rate)`. And it must
//! lift the requests outstanding (about `rate x lifetime`) by twice the steady verdict's
//! `max_trend`: `w >= 2 max_trend x lifetime / d`. `d` is the search's resolution: a
//! smaller overload is inside the bracket the search reports anyway.

/// Standard errors a growing queue must stand above the arrivals' noise.
pub const QUEUE_Z: f64 = 3.0;

/// Seconds of Measure a probe at `rps` needs to show a queue growing by `resolution` of
/// the rate, given the request lifetime `lifetime_s` (E2E p50, when known) and the steady
/// verdict's `max_trend`.
pub fn probe_seconds(rps: f64, lifetime_s: Option<f64>, resolution: f64, max_trend: f64) -> f64 {
    let d = resolution.max(1e-3);
    let counts = QUEUE_Z * QUEUE_Z / (d * d * rps.max(1e-9));
    let lifetimes = lifetime_s.map_or(0.0, |l| 2.0 * max_trend * l / d);
    counts.max(lifetimes).ceil()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_follow_the_rate_and_the_lifetime() {
        // (rps, lifetime s, resolution, seconds)
        let rows = [
            // The simulator near 28 req/s: 9 / (0.01 x 28) = 32.1 -> 33 s.
            (28.0, Some(1.1), 0.1, 33.0),
            // Busier servers need less: 2 x 0.15 x 1.1 / 0.1 = 3.3 -> 4 s, the lifetime bound.
            (400.0, Some(1.1), 0.1, 4.0),
            // Long requests: 2 x 0.15 x 30 / 0.1 = 90 s.
            (100.0, Some(30.0), 0.1, 90.0),
            // A finer resolution costs the square: 9 / (0.0025 x 28) = 128.6 -> 129 s.
            (28.0, None, 0.05, 129.0),
        ];
        for (rps, lifetime, resolution, want) in rows {
            assert_eq!(
                probe_seconds(rps, lifetime, resolution, 0.15),
                want,
                "{rps} {lifetime:?}"
            );
        }
    }
}
