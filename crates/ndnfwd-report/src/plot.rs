//! SVG charts with plotters (SVG backend only: no system libraries, text left to the viewer):
//! line charts over a numeric x axis and grouped bar charts over categories.

use std::error::Error;
use std::path::Path;

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

/// One named series of y values.
pub struct Series {
    /// Legend label.
    pub name: String,
    /// `(x, y)` points (line charts) or one y per category (bar charts).
    pub points: Vec<(f64, f64)>,
}

/// Text of a chart: title, axis labels, and a footer naming the machine.
pub struct Labels<'a> {
    /// Title on top.
    pub title: &'a str,
    /// X axis description.
    pub x: &'a str,
    /// Y axis description.
    pub y: &'a str,
    /// Footer (machine).
    pub footer: &'a str,
}

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// Paints the white canvas and the footer line naming command and machine; returns the area
/// above the footer for the chart.
fn frame<'a>(
    root: &DrawingArea<SVGBackend<'a>, plotters::coord::Shift>,
    l: &Labels<'_>,
) -> Result<DrawingArea<SVGBackend<'a>, plotters::coord::Shift>, Box<dyn Error>> {
    root.fill(&WHITE)?;
    let (top, bottom) = root.split_vertically(410);
    bottom.draw_text(
        l.footer,
        &("sans-serif", 12).into_font().color(&BLACK),
        (10, 8),
    )?;
    Ok(top)
}

/// Draws the legend of `chart` (upper right) and writes the SVG of `root`.
fn finish<'a>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    root: &DrawingArea<SVGBackend<'a>, plotters::coord::Shift>,
) -> Result<(), Box<dyn Error>> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()?;
    root.present()?;
    Ok(())
}

fn color(i: usize) -> RGBColor {
    COLORS.get(i % COLORS.len()).copied().unwrap_or(BLACK)
}

fn y_max(series: &[Series]) -> f64 {
    let m = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0f64, f64::max);
    if m > 0.0 {
        m * 1.15
    } else {
        1.0
    }
}

/// A line chart; `x_fmt` formats x tick labels.
pub fn lines(
    path: &Path,
    l: &Labels<'_>,
    series: &[Series],
    x_fmt: &dyn Fn(&f64) -> String,
) -> Result<(), Box<dyn Error>> {
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (x0, x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let (x0, x1) = if x0 < x1 {
        (x0, x1)
    } else {
        (x0 - 1.0, x0 + 1.0)
    };
    let pad = (x1 - x0) * 0.05;
    let root = SVGBackend::new(path, (760, 440)).into_drawing_area();
    let top = frame(&root, l)?;
    let mut chart = ChartBuilder::on(&top)
        .caption(l.title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d((x0 - pad)..(x1 + pad), 0.0..y_max(series))?;
    chart
        .configure_mesh()
        .x_desc(l.x)
        .y_desc(l.y)
        .x_label_formatter(x_fmt)
        .draw()?;
    for (i, s) in series.iter().enumerate() {
        let c = color(i);
        chart
            .draw_series(LineSeries::new(s.points.iter().copied(), c.stroke_width(2)))?
            .label(s.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
        chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 4, c.filled())))?;
    }
    finish(&mut chart, &root)
}

/// A grouped bar chart: one group per category, one bar per series (`points[k].1` is the value
/// of category `k`).
pub fn bars(
    path: &Path,
    l: &Labels<'_>,
    categories: &[String],
    series: &[Series],
) -> Result<(), Box<dyn Error>> {
    let n = categories.len().max(1);
    let root = SVGBackend::new(path, (760, 440)).into_drawing_area();
    let top = frame(&root, l)?;
    let mut chart = ChartBuilder::on(&top)
        .caption(l.title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.5..(n as f64 - 0.5), 0.0..y_max(series))?;
    let cats = categories.to_vec();
    let fmt = move |x: &f64| {
        let k = x.round();
        if (x - k).abs() < 0.01 && k >= 0.0 {
            cats.get(k as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .x_desc(l.x)
        .y_desc(l.y)
        .x_labels(n)
        .x_label_formatter(&fmt)
        .disable_x_mesh()
        .draw()?;
    let width = 0.8 / series.len().max(1) as f64;
    for (i, s) in series.iter().enumerate() {
        let c = color(i);
        let left = -0.4 + width * i as f64;
        chart
            .draw_series(s.points.iter().enumerate().map(|(k, &(_, v))| {
                let x = k as f64 + left;
                Rectangle::new([(x, 0.0), (x + width * 0.9, v)], c.filled())
            }))?
            .label(s.name.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], c.filled()));
    }
    finish(&mut chart, &root)
}
