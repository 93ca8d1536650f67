//! The look shared by every figure and table: series colours, phase colours, font sizes,
//! panel sizes and how numbers are written.

pub use plateau_model::quantity::number;
use plotters::style::{FontDesc, FontStyle, RGBColor};

use crate::font::FAMILY;

/// Series colours (Okabe–Ito, readable by colour-blind readers), cycled.
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
    RGBColor(0, 0, 0),
    RGBColor(240, 228, 66),
];

/// The colour of series `i`.
pub fn series_color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Text colour.
pub const TEXT: RGBColor = RGBColor(30, 30, 30);
/// Secondary text colour (subtitles, notes).
pub const MUTED: RGBColor = RGBColor(100, 100, 100);
/// Grid lines.
pub const GRID: RGBColor = RGBColor(225, 225, 225);
/// Reference lines (the diagonal y = x).
pub const REFERENCE: RGBColor = RGBColor(170, 170, 170);
/// Marks a cell that failed a check.
pub const ALERT: RGBColor = RGBColor(200, 30, 30);
/// Empty heatmap cells.
pub const EMPTY: RGBColor = RGBColor(238, 238, 238);

/// Fill, Stabilize, Measure, Drain backgrounds in the timeline.
pub const PHASES: [RGBColor; 4] = [
    RGBColor(236, 236, 236),
    RGBColor(255, 240, 214),
    RGBColor(218, 240, 222),
    RGBColor(226, 232, 244),
];

/// Viridis anchors (matplotlib's default colour map), evenly spaced from low to high.
const VIRIDIS: [RGBColor; 8] = [
    RGBColor(68, 1, 84),
    RGBColor(70, 50, 127),
    RGBColor(54, 92, 141),
    RGBColor(39, 127, 143),
    RGBColor(31, 162, 136),
    RGBColor(74, 194, 110),
    RGBColor(160, 219, 57),
    RGBColor(254, 232, 37),
];

/// The heatmap colour of `t` in `[0, 1]` (clamped): dark purple (low) to yellow (high).
pub fn scale(t: f64) -> RGBColor {
    let x = t.clamp(0.0, 1.0) * (VIRIDIS.len() - 1) as f64;
    let i = (x.floor() as usize).min(VIRIDIS.len() - 2);
    let f = x - i as f64;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    let mix = |p: u8, q: u8| (f64::from(p) + f * (f64::from(q) - f64::from(p))).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Width of one panel, px.
pub const PANEL_W: u32 = 560;
/// Height of one panel, px.
pub const PANEL_H: u32 = 400;

fn font(size: u32, style: FontStyle) -> FontDesc<'static> {
    FontDesc::new(FAMILY.into(), f64::from(size), style)
}

/// Figure title.
pub fn title() -> FontDesc<'static> {
    font(28, FontStyle::Bold)
}

/// Figure subtitle.
pub fn subtitle() -> FontDesc<'static> {
    font(17, FontStyle::Normal)
}

/// Panel caption.
pub fn caption() -> FontDesc<'static> {
    font(20, FontStyle::Bold)
}

/// Axis descriptions and legend entries.
pub fn label() -> FontDesc<'static> {
    font(16, FontStyle::Normal)
}

/// Tick labels and values written on the plot.
pub fn small() -> FontDesc<'static> {
    font(14, FontStyle::Normal)
}

/// A tick label: integers without decimals, others with up to three, trailing zeros cut.
pub fn tick(v: f64) -> String {
    if (v - v.round()).abs() <= 1e-9 * v.abs().max(1.0) {
        format!("{:.0}", v.round() + 0.0)
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_drop_needless_decimals() {
        assert_eq!(tick(25.0), "25");
        assert_eq!(tick(2.5), "2.5");
        assert_eq!(tick(0.30000000000000004), "0.3");
        assert_eq!(tick(-0.0), "0");
    }

    #[test]
    fn scale_ends_and_clamps() {
        assert_eq!(scale(0.0), VIRIDIS[0]);
        assert_eq!(scale(1.0), VIRIDIS[7]);
        assert_eq!(scale(-3.0), VIRIDIS[0]);
        assert_eq!(scale(9.0), VIRIDIS[7]);
    }

    #[test]
    fn three_significant_digits() {
        let rows = [
            (1234.4, "1234"),
            (123.44, "123"),
            (12.345, "12.3"),
            (1.2345, "1.23"),
            (0.12345, "0.123"),
            (0.0, "0"),
        ];
        for (v, want) in rows {
            assert_eq!(number(v), want, "{v}");
        }
    }
}
