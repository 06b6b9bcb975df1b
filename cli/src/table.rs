//! One table, four renderings: aligned text, CSV, Markdown (JSON is serde's).

/// The width text tables fit (a 120-column terminal): a last column of
/// prose wraps to it.
pub const TEXT_WIDTH: usize = 120;

/// A wrapped last column is at least this wide, whatever the others take.
const MIN_WRAPPED_WIDTH: usize = 30;

/// `text` in lines of at most `width` characters, broken at spaces (a
/// longer word has a line of its own).
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in text.split(' ') {
        let fits = current.chars().count() + 1 + word.chars().count() <= width;
        if current.is_empty() {
            current.push_str(word);
        } else if fits {
            current.push(' ');
            current.push_str(word);
        } else {
            lines.push(std::mem::take(&mut current));
            current.push_str(word);
        }
    }
    lines.push(current);
    lines
}

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
        // A last column of prose (a note) wraps so the table fits
        // TEXT_WIDTH columns; numbers never wrap.
        let last = widths.len().saturating_sub(1);
        let before: usize = widths.iter().take(last).map(|w| w + 2).sum();
        let wrap = match (self.numeric.last(), widths.last()) {
            (Some(false), Some(&w)) if before + w > TEXT_WIDTH => {
                Some(TEXT_WIDTH.saturating_sub(before).max(MIN_WRAPPED_WIDTH))
            }
            _ => None,
        };
        if let (Some(w), Some(slot)) = (wrap, widths.last_mut()) {
            *slot = w;
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
            match (wrap, row.split_last()) {
                (Some(w), Some((note, rest))) => {
                    let mut lines = wrap_words(note, w).into_iter();
                    let mut cells = rest.to_vec();
                    cells.push(lines.next().unwrap_or_default());
                    out.push_str(&line(&cells));
                    out.push('\n');
                    for more in lines {
                        out.push_str(&format!("{}{more}", " ".repeat(before)));
                        out.push('\n');
                    }
                }
                _ => {
                    out.push_str(&line(row));
                    out.push('\n');
                }
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prose_last_column_wraps_to_the_text_width() {
        let mut t = Table::new(&[("Quantity", false), ("Value", true), ("Note", false)]);
        let note = "word ".repeat(60);
        t.push(vec![
            "kv_cache_tokens".into(),
            "1,263,908".into(),
            note.trim().into(),
        ]);
        let text = t.text();
        assert!(
            text.lines().all(|l| l.chars().count() <= TEXT_WIDTH),
            "{text}"
        );
        // Every word is kept, the continuation lines under the note column.
        assert_eq!(text.matches("word").count(), 60);
        let first = text.lines().nth(2).unwrap();
        let note_at = first.find("word").unwrap();
        assert!(text
            .lines()
            .skip(3)
            .all(|l| l.find("word") == Some(note_at)));
        assert_eq!(wrap_words("a bb ccc", 4), vec!["a bb", "ccc"]);
    }
}
