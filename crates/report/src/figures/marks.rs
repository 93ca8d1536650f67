//! Point markers: a circle for a closed-loop cell (one concurrency N), a square for an
//! open-loop cell (one request rate), hollow when the value is not to be read at face
//! value: the cell was overloaded (arrivals outpaced the server, so its latency percentiles
//! say only how long the window was), or its percentile rests on too few samples.

use plotters::coord::CoordTranslate;
use plotters::prelude::*;

use super::frame::DrawError;

/// Marker radius (half the square's side), px.
const R: i32 = 5;

/// The shape of a marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A closed-loop cell.
    Circle,
    /// An open-loop cell.
    Square,
}

/// One marker.
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    /// Its shape.
    pub shape: Shape,
    /// Its colour.
    pub color: RGBColor,
    /// Hollow: the cell was overloaded, or the value rests on too few samples.
    pub hollow: bool,
}

/// Draws `mark` centred at `at` on `area` (data coordinates on a chart, pixels on a panel).
pub fn draw<DB, CT, C>(area: &DrawingArea<DB, CT>, at: C, mark: Mark) -> Result<(), DrawError>
where
    DB: DrawingBackend,
    CT: CoordTranslate<From = C>,
    C: Clone + 'static,
{
    let fill = if mark.hollow {
        WHITE.filled()
    } else {
        mark.color.filled()
    };
    let edge = mark.color.stroke_width(2);
    match mark.shape {
        Shape::Circle => {
            area.draw(&(EmptyElement::at(at.clone()) + Circle::new((0, 0), R, fill)))?;
            area.draw(&(EmptyElement::at(at) + Circle::new((0, 0), R, edge)))?;
        }
        Shape::Square => {
            let corners = [(-R, -R), (R, R)];
            area.draw(&(EmptyElement::at(at.clone()) + Rectangle::new(corners, fill)))?;
            area.draw(&(EmptyElement::at(at) + Rectangle::new(corners, edge)))?;
        }
    }
    Ok(())
}
