//! Point markers: a circle for a closed-loop cell (one concurrency N), a square for an
//! open-loop cell (one request rate), and the event marks of a timeline (a cross for a
//! failed request, a triangle for one the server turned away). A cell's marker has a
//! [`Face`]: solid, hollow when its percentile rests on too few samples (indicative), or
//! hollow with a cross when the cell was overloaded (arrivals outpaced the server, so its
//! latency percentiles say only how long the window was). [`line()`] draws the line through
//! a figure's markers.

use plotters::coord::CoordTranslate;
use plotters::prelude::*;

use super::frame::{DrawError, Swatch};
use crate::style;

/// Marker radius (half the square's side), px.
const R: i32 = 5;

/// The shape of a marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A closed-loop cell.
    Circle,
    /// An open-loop cell.
    Square,
    /// A failed request (timeline).
    Cross,
    /// A request the server turned away: 429, 503 or no connection (timeline).
    Triangle,
}

/// How a cell's marker is filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Face {
    /// Filled: read it at face value.
    Solid,
    /// White inside: the percentile rests on too few samples.
    Hollow,
    /// White with a cross inside: the cell was overloaded.
    Crossed,
}

impl Face {
    /// The face of a cell that was `overloaded` and whose value rests on too few samples
    /// (`small`): overloaded says more, so it wins.
    pub fn of(overloaded: bool, small: bool) -> Face {
        match (overloaded, small) {
            (true, _) => Face::Crossed,
            (false, true) => Face::Hollow,
            (false, false) => Face::Solid,
        }
    }
}

/// One marker.
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    /// Its shape.
    pub shape: Shape,
    /// Its colour.
    pub color: RGBColor,
    /// Solid, hollow or crossed.
    pub face: Face,
}

/// Draws `mark` centred at `at` on `area` (data coordinates on a chart, pixels on a panel).
pub fn draw<DB, CT, C>(area: &DrawingArea<DB, CT>, at: C, mark: Mark) -> Result<(), DrawError>
where
    DB: DrawingBackend,
    CT: CoordTranslate<From = C>,
    C: Clone + 'static,
{
    let fill = if mark.face == Face::Solid {
        mark.color.filled()
    } else {
        WHITE.filled()
    };
    let edge = mark.color.stroke_width(2);
    match mark.shape {
        Shape::Circle => {
            area.draw(&(EmptyElement::at(at.clone()) + Circle::new((0, 0), R, fill)))?;
            area.draw(&(EmptyElement::at(at.clone()) + Circle::new((0, 0), R, edge)))?;
        }
        Shape::Square => {
            let corners = [(-R, -R), (R, R)];
            area.draw(&(EmptyElement::at(at.clone()) + Rectangle::new(corners, fill)))?;
            area.draw(&(EmptyElement::at(at.clone()) + Rectangle::new(corners, edge)))?;
        }
        Shape::Cross => {
            for (a, b) in [((-R, -R), (R, R)), ((-R, R), (R, -R))] {
                area.draw(&(EmptyElement::at(at.clone()) + PathElement::new([a, b], edge)))?;
            }
        }
        Shape::Triangle => {
            let corners = vec![(0, -R - 1), (R + 1, R), (-R - 1, R)];
            area.draw(&(EmptyElement::at(at.clone()) + Polygon::new(corners, mark.color)))?;
        }
    }
    if mark.face == Face::Crossed && matches!(mark.shape, Shape::Circle | Shape::Square) {
        let inner = R - 2;
        let stroke = mark.color.stroke_width(1);
        for (a, b) in [
            ((-inner, -inner), (inner, inner)),
            ((-inner, inner), (inner, -inner)),
        ] {
            area.draw(&(EmptyElement::at(at.clone()) + PathElement::new([a, b], stroke)))?;
        }
    }
    Ok(())
}

/// The legend entry of a value from too few samples, drawn with `shape`.
pub fn small_sample_swatch(shape: Shape) -> (Swatch, String) {
    (
        Swatch::Mark(Mark {
            shape,
            color: style::MUTED,
            face: Face::Hollow,
        }),
        "hollow: too few samples for this percentile (indicative)".into(),
    )
}

/// A 3 px line through `xy` in `color` on `chart`: solid, or dashed (10 px dashes, 6 px
/// gaps).
pub fn line<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, impl CoordTranslate<From = (f64, f64)>>,
    xy: impl IntoIterator<Item = (f64, f64)>,
    color: RGBColor,
    dashed: bool,
) -> Result<(), DrawError> {
    let stroke = color.stroke_width(3);
    if dashed {
        let xy: Vec<(f64, f64)> = xy.into_iter().collect();
        chart.draw_series(DashedLineSeries::new(xy, 10, 6, stroke))?;
    } else {
        chart.draw_series(LineSeries::new(xy, stroke))?;
    }
    Ok(())
}
