//! The embedded font: DejaVu Sans (regular and bold, `fonts/`, Bitstream Vera licence)
//! registered with plotters' ab_glyph backend as `sans-serif`, so figures render the same on
//! a machine with no font packages.

use std::sync::OnceLock;

use plotters::style::{FontStyle, register_font};

use crate::error::ReportError;

/// The family name figures ask for; SVG viewers fall back to their own sans-serif.
pub const FAMILY: &str = "sans-serif";

static REGULAR: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");
static BOLD: &[u8] = include_bytes!("../fonts/DejaVuSans-Bold.ttf");

/// Registers the font once per process; later calls return the first outcome.
pub fn register() -> Result<(), ReportError> {
    static DONE: OnceLock<bool> = OnceLock::new();
    let ok = *DONE.get_or_init(|| {
        register_font(FAMILY, FontStyle::Normal, REGULAR).is_ok()
            && register_font(FAMILY, FontStyle::Bold, BOLD).is_ok()
    });
    if ok { Ok(()) } else { Err(ReportError::Font) }
}
