//! One table, four renderings: aligned text, CSV, Markdown (JSON is serde's).

#[derive(Debug, Default)]
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Right-align these columns in text.
    pub numeric: Vec<bool>,
}

impl Table {
    pub fn new(headers: &[(&str, bool)]) -> Table {
        Table {
            headers: headers.iter().map(|h| h.0.to_string()).collect(),
            numeric: headers.iter().map(|h| h.1).collect(),
            rows: Vec::new(),
        }
    }

    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    pub fn text(&self) -> String {
        let mut widths: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (w, c) in widths.iter_mut().zip(row) {
                *w = (*w).max(c.chars().count());
            }
        }
        let line = |cells: &[String]| -> String {
            let parts: Vec<String> = cells
                .iter()
                .zip(&widths)
                .zip(&self.numeric)
                .map(|((c, &w), &num)| {
                    if num {
                        format!("{c:>w$}")
                    } else {
                        format!("{c:<w$}")
                    }
                })
                .collect();
            parts.join("  ").trim_end().to_string()
        };
        let mut out = line(&self.headers);
        out.push('\n');
        let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
        out.push_str(&rule.join("  "));
        out.push('\n');
        for row in &self.rows {
            out.push_str(&line(row));
            out.push('\n');
        }
        out
    }

    pub fn markdown(&self) -> String {
        let mut out = format!("| {} |\n", self.headers.join(" | "));
        let rule: Vec<&str> = self
            .numeric
            .iter()
            .map(|&n| if n { "---:" } else { "---" })
            .collect();
        out.push_str(&format!("| {} |\n", rule.join(" | ")));
        for row in &self.rows {
            out.push_str(&format!("| {} |\n", row.join(" | ")));
        }
        out
    }

    pub fn csv(&self) -> Result<String, String> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(&self.headers).map_err(|e| e.to_string())?;
        for row in &self.rows {
            w.write_record(row).map_err(|e| e.to_string())?;
        }
        let bytes = w.into_inner().map_err(|e| e.to_string())?;
        String::from_utf8(bytes).map_err(|e| e.to_string())
    }
}
