//! The benchmark's output: a side-by-side table with ferrocl/other ratios
//! and the targets of the performance plan (docs/performance.md), or the
//! same as JSON.

use super::{DeviceResults, Outcome, Row};
use std::fmt::Write;

/// What a row is held to: a ratio ferrocl/other (`at_least` true: the
/// ratio must reach `bound`; false: stay at or under it), or an absolute
/// value in the row's unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Goal {
    Ratio { bound: f64, at_least: bool },
    Absolute { bound: f64 },
}

/// The goal of each row (issue 7's plan).
pub fn goal(row: &Row) -> Option<Goal> {
    let ratio = |bound, at_least| Some(Goal::Ratio { bound, at_least });
    match row.group {
        "bandwidth" | "app" => ratio(1.0, true),
        "compute" if row.name.starts_with("fp16") => Some(Goal::Absolute { bound: 100_000.0 }),
        // Beyond issue 7's list: a feature the other platforms may lack.
        "compute" if row.name.starts_with("int8 dot") => None,
        "compute" => ratio(1.0, true),
        "transfer" => ratio(3.0, true),
        "enqueue" if row.name.contains("round trip") => ratio(0.7, false),
        "enqueue"
            if row.name.contains("threads")
                || row.name.contains("calls")
                || row.name.starts_with("dependent") =>
        {
            None
        }
        "enqueue" => ratio(0.5, false),
        "build" => ratio(0.025, false),
        _ => None,
    }
}

impl Goal {
    fn describe(&self) -> String {
        match *self {
            Goal::Ratio { bound, at_least } => {
                format!("{} {bound}", if at_least { ">=" } else { "<=" })
            }
            Goal::Absolute { bound } => format!(">= {bound} abs"),
        }
    }

    /// Whether the goal is met, given ferrocl's value and the ratio to the
    /// other device (when there is one).
    fn met(&self, value: f64, ratio: Option<f64>) -> Option<bool> {
        match *self {
            Goal::Ratio { bound, at_least } => {
                ratio.map(|r| if at_least { r >= bound } else { r <= bound })
            }
            Goal::Absolute { bound } => Some(value >= bound),
        }
    }
}

pub struct Report {
    pub devices: Vec<DeviceResults>,
    /// UTC date and time of the run.
    pub when: String,
}

/// `YYYY-MM-DD HH:MM UTC` from the system clock.
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = ((secs / 86400) as i64, secs % 86400);
    // Days since 1970-01-01 to a civil date (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60
    )
}

fn value_text(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Value(v) if *v >= 100.0 => format!("{v:.0}"),
        Outcome::Value(v) if *v >= 1.0 => format!("{v:.2}"),
        Outcome::Value(v) => format!("{v:.4}"),
        Outcome::NotSupported(_) => "n/a".into(),
        Outcome::Failed(_) => "FAILED".into(),
    }
}

fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_number(v: f64) -> String {
    if v.is_finite() {
        format!("{v}")
    } else {
        "null".into()
    }
}

impl Report {
    pub fn new(devices: Vec<DeviceResults>) -> Report {
        Report {
            devices,
            when: utc_now(),
        }
    }

    /// The ferrocl device the ratios are taken for: its first GPU, else
    /// its first device.
    fn ferrocl_index(&self) -> Option<usize> {
        let ferrocl: Vec<usize> = (0..self.devices.len())
            .filter(|&i| self.devices[i].ferrocl)
            .collect();
        ferrocl
            .iter()
            .copied()
            .find(|&i| !self.devices[i].device.contains("llvmpipe"))
            .or(ferrocl.first().copied())
    }

    fn others(&self) -> Vec<usize> {
        (0..self.devices.len())
            .filter(|&i| !self.devices[i].ferrocl)
            .collect()
    }

    /// ferrocl's value over the other device's for row `r`.
    fn ratio(&self, ours: usize, other: usize, r: usize) -> Option<f64> {
        let a = self.devices[ours].rows.get(r)?;
        let b = self.devices[other].rows.get(r)?;
        match (&a.value, &b.value) {
            (Outcome::Value(x), Outcome::Value(y)) if a.name == b.name && *y > 0.0 => Some(x / y),
            _ => None,
        }
    }

    pub fn failures(&self) -> usize {
        self.devices
            .iter()
            .flat_map(|d| &d.rows)
            .filter(|r| matches!(r.value, Outcome::Failed(_)))
            .count()
    }

    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "ferrocl bench, {}", self.when);
        for (i, d) in self.devices.iter().enumerate() {
            let _ = writeln!(
                out,
                "  [{i}] {} / {} (driver {}, {})",
                d.platform, d.device, d.driver, d.version
            );
        }
        let ours = self.ferrocl_index();
        let others = self.others();
        let mut header = format!("{:<52} {:<16}", "workload", "unit");
        for i in 0..self.devices.len() {
            let _ = write!(header, " {:>12}", format!("[{i}]"));
        }
        if let Some(o) = ours {
            for &b in &others {
                let _ = write!(header, " {:>10}", format!("[{o}]/[{b}]"));
            }
        }
        let _ = write!(header, "  {:<16}", "target");
        let _ = writeln!(out, "\n{header}");
        let _ = writeln!(out, "{}", "-".repeat(header.len()));
        let rows = self.devices.iter().map(|d| d.rows.len()).max().unwrap_or(0);
        let mut notes = Vec::new();
        for r in 0..rows {
            let Some(first) = self.devices.iter().find_map(|d| d.rows.get(r)) else {
                continue;
            };
            let mut line = format!("{:<52} {:<16}", first.name, first.unit);
            for (i, d) in self.devices.iter().enumerate() {
                match d.rows.get(r) {
                    Some(row) => {
                        let _ = write!(line, " {:>12}", value_text(&row.value));
                        if let Outcome::Failed(e) | Outcome::NotSupported(e) = &row.value {
                            notes.push(format!("[{i}] {}: {e}", row.name));
                        }
                    }
                    None => {
                        let _ = write!(line, " {:>12}", "-");
                    }
                }
            }
            let mut ratio_first = None;
            if let Some(o) = ours {
                for &b in &others {
                    let ratio = self.ratio(o, b, r);
                    ratio_first = ratio_first.or(ratio);
                    let text = ratio.map_or("-".to_string(), |x| format!("{x:.3}"));
                    let _ = write!(line, " {text:>10}");
                }
            }
            if let Some(g) = goal(first) {
                let verdict = match (ours.and_then(|o| self.devices[o].rows.get(r)), g) {
                    (Some(row), g) => match row.value {
                        Outcome::Value(v) => match g.met(v, ratio_first) {
                            Some(true) => "met",
                            Some(false) => "SHORT",
                            None => "",
                        },
                        _ => "SHORT",
                    },
                    _ => "",
                };
                let _ = write!(line, "  {:<10} {verdict}", g.describe());
            }
            let _ = writeln!(out, "{}", line.trim_end());
        }
        if !notes.is_empty() {
            let _ = writeln!(out, "\nnotes:");
            for n in notes {
                let first_line = n.lines().next().unwrap_or_default();
                let _ = writeln!(out, "  {first_line}");
            }
        }
        out
    }

    pub fn json(&self) -> String {
        let mut out = String::new();
        let _ = write!(out, "{{\"when\":{},\"devices\":[", json_string(&self.when));
        for (i, d) in self.devices.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(
                out,
                "{{\"index\":{i},\"platform\":{},\"device\":{},\"driver\":{},\"version\":{},\"ferrocl\":{},\"results\":[",
                json_string(&d.platform),
                json_string(&d.device),
                json_string(&d.driver),
                json_string(&d.version),
                d.ferrocl
            );
            for (j, r) in d.rows.iter().enumerate() {
                if j > 0 {
                    out.push(',');
                }
                let (value, status, detail) = match &r.value {
                    Outcome::Value(v) => (json_number(*v), "ok", String::new()),
                    Outcome::NotSupported(e) => ("null".into(), "not supported", e.clone()),
                    Outcome::Failed(e) => ("null".into(), "failed", e.clone()),
                };
                let _ = write!(
                    out,
                    "{{\"group\":{},\"name\":{},\"unit\":{},\"value\":{value},\"status\":{},\"detail\":{}}}",
                    json_string(r.group),
                    json_string(&r.name),
                    json_string(r.unit),
                    json_string(status),
                    json_string(&detail)
                );
            }
            out.push_str("]}");
        }
        out.push_str("],\"ratios\":[");
        let mut first = true;
        if let Some(o) = self.ferrocl_index() {
            for b in self.others() {
                for (r, row) in self.devices[o].rows.iter().enumerate() {
                    let Some(ratio) = self.ratio(o, b, r) else {
                        continue;
                    };
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    let (target, met) = match goal(row) {
                        Some(g) => {
                            let met = match row.value {
                                Outcome::Value(v) => g.met(v, Some(ratio)),
                                _ => Some(false),
                            };
                            (
                                json_string(&g.describe()),
                                met.map_or("null".to_string(), |m| m.to_string()),
                            )
                        }
                        None => ("null".into(), "null".into()),
                    };
                    let _ = write!(
                        out,
                        "{{\"name\":{},\"ferrocl\":{o},\"other\":{b},\"ratio\":{},\"target\":{target},\"met\":{met}}}",
                        json_string(&row.name),
                        json_number(ratio)
                    );
                }
            }
        }
        out.push_str("]}");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device(ferrocl: bool, values: &[f64]) -> DeviceResults {
        DeviceResults {
            platform: if ferrocl { "ferrocl" } else { "Other" }.into(),
            device: "GPU".into(),
            driver: "1".into(),
            version: "OpenCL 3.0".into(),
            ferrocl,
            rows: values
                .iter()
                .zip([
                    "global memory bandwidth float",
                    "empty kernel enqueue+finish round trip",
                ])
                .map(|(&v, name)| Row {
                    group: if name.contains("bandwidth") {
                        "bandwidth"
                    } else {
                        "enqueue"
                    },
                    name: name.into(),
                    unit: "x",
                    value: Outcome::Value(v),
                })
                .collect(),
        }
    }

    #[test]
    fn ratios_and_goals() {
        let report = Report::new(vec![device(true, &[3.0, 5.0]), device(false, &[2.0, 10.0])]);
        assert_eq!(report.ratio(0, 1, 0), Some(1.5));
        assert_eq!(report.ratio(0, 1, 1), Some(0.5));
        let table = report.table();
        assert!(table.contains("1.500"), "{table}");
        assert!(table.contains("met"), "{table}");
        let json = report.json();
        assert!(json.contains("\"ratio\":1.5"), "{json}");
        assert!(json.contains("\"met\":true"), "{json}");
        assert_eq!(report.failures(), 0);
    }

    #[test]
    fn goals_per_row() {
        let row = |group, name: &str| Row {
            group,
            name: name.into(),
            unit: "",
            value: Outcome::Value(1.0),
        };
        assert_eq!(
            goal(&row("build", "cold")),
            Some(Goal::Ratio {
                bound: 0.025,
                at_least: false
            })
        );
        assert_eq!(
            goal(&row("enqueue", "dependent launches, per kernel")),
            None
        );
        assert_eq!(
            goal(&row("compute", "fp16 compute (mad)")),
            Some(Goal::Absolute { bound: 100_000.0 })
        );
        assert_eq!(goal(&row("compute", "int8 dot compute (4x8 packed)")), None);
        assert!(Goal::Ratio {
            bound: 0.7,
            at_least: false
        }
        .met(1.0, Some(0.6))
        .unwrap());
    }

    #[test]
    fn json_escapes() {
        assert_eq!(json_string("a\"b\\\n"), "\"a\\\"b\\\\\\n\"");
        assert_eq!(json_number(f64::NAN), "null");
    }

    #[test]
    fn date_is_plausible() {
        let when = utc_now();
        assert!(when.starts_with("20") && when.ends_with("UTC"), "{when}");
    }
}
