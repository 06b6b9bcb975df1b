//! Reading a CSV whose header names its columns, shared by decodecalc's
//! measured CSV (`measured`) and the runs corpus (`runs`): the header read and
//! each column found by name, rows read with their line, and each field
//! parsed and bounded. Every error names the file, the line and the column;
//! a header error's hint lists the valid columns.

use crate::error::{Error, HeaderRule, Result};
use decodecalc_core::units::FromText;
use std::ops::RangeBounds;

/// What the header must hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Header {
    /// Every column, in any order, other columns besides.
    AnyOrder,
    /// Exactly the columns, in their order.
    Exact,
}

/// The rows after the header.
pub type Records<'a> = csv::StringRecordsIntoIter<&'a [u8]>;

/// Where each of a file's columns is in its header.
#[derive(Debug)]
pub struct Columns<'a> {
    origin: &'a str,
    names: &'a [&'a str],
    /// The header position of each of `names`.
    index: Vec<usize>,
    /// Fields of the header, which every row has.
    fields: usize,
}

impl<'a> Columns<'a> {
    /// Read the header of `text` (named `origin` in errors) and find `names`
    /// in it; the rows follow.
    pub fn read(
        origin: &'a str,
        text: &'a str,
        names: &'a [&'a str],
        header: Header,
    ) -> Result<(Self, Records<'a>)> {
        decodecalc_core::parse::check_size(origin, text)?;
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(false)
            .from_reader(text.as_bytes());
        let headers = reader.headers().map_err(|e| Error::Header {
            origin: origin.to_string(),
            reason: e.to_string(),
        })?;
        let have: Vec<&str> = headers.iter().map(str::trim).collect();
        let columns = Self::find(origin, &have, names, header)?;
        Ok((columns, reader.into_records()))
    }

    /// Each of `names` in the header `have`.
    fn find(origin: &'a str, have: &[&str], names: &'a [&'a str], header: Header) -> Result<Self> {
        let rule = match header {
            Header::AnyOrder => HeaderRule::Names(names.join(",")),
            Header::Exact => HeaderRule::Exactly(names.join(",")),
        };
        let index = names
            .iter()
            .map(|name| {
                have.iter()
                    .position(|h| h == name)
                    .ok_or_else(|| Error::MissingColumn {
                        origin: origin.to_string(),
                        column: name.to_string(),
                        rule: rule.clone(),
                    })
            })
            .collect::<Result<Vec<usize>>>()?;
        if header == Header::Exact && have != names {
            let at = have
                .iter()
                .zip(names)
                .position(|(h, n)| h != n)
                .unwrap_or(names.len());
            return Err(Error::WrongColumn {
                origin: origin.to_string(),
                at: at + 1,
                found: have.get(at).copied().unwrap_or("").to_string(),
                wanted: names.get(at).map(|w| w.to_string()),
                rule,
            });
        }
        Ok(Columns {
            origin,
            names,
            index,
            fields: have.len(),
        })
    }

    /// The rows of `records` (what [`Columns::read`] returned), each with its
    /// line; a row with another number of fields than the header is an error.
    pub fn rows<'c>(&'c self, records: Records<'c>) -> impl Iterator<Item = Result<Row<'c>>> + 'c {
        records.enumerate().map(move |(i, rec)| {
            let line = i + 2;
            let rec = rec.map_err(|e| Error::Row {
                origin: self.origin.to_string(),
                line,
                reason: e.to_string(),
                fields: self.fields,
            })?;
            Ok(Row {
                columns: self,
                line,
                rec,
            })
        })
    }

    /// The error for a file with a header and no rows.
    pub fn no_rows(&self, expected: &str) -> Error {
        Error::NoRows {
            origin: self.origin.to_string(),
            expected: expected.to_string(),
        }
    }
}

/// One row of a file, its fields read by column (the position of the
/// column in the `names` given to [`Columns::read`]).
#[derive(Debug)]
pub struct Row<'c> {
    columns: &'c Columns<'c>,
    line: usize,
    rec: csv::StringRecord,
}

impl Row<'_> {
    /// The field of column `col`, trimmed; empty where the row has none.
    pub fn get(&self, col: usize) -> &str {
        let at = self.columns.index.get(col).copied().unwrap_or(usize::MAX);
        self.rec.get(at).unwrap_or("").trim()
    }

    /// `file.csv:LINE`.
    pub fn source(&self) -> String {
        format!("{}:{}", self.columns.origin, self.line)
    }

    /// `file.csv:LINE: column `name``, where a field's value is read elsewhere.
    pub fn column(&self, col: usize) -> String {
        let name = self.columns.names.get(col).copied().unwrap_or("?");
        format!("{}: column `{name}`", self.source())
    }

    /// The error for column `col`'s field, with what would be valid.
    pub fn bad(&self, col: usize, valid: &str) -> Error {
        Error::Cell {
            at: self.column(col),
            value: self.get(col).to_string(),
            valid: valid.to_string(),
        }
    }

    /// Column `col`'s number, None when empty; a number outside `range` (or
    /// not a number) is an error with the hint `valid`.
    pub fn number<T>(
        &self,
        col: usize,
        range: impl RangeBounds<T>,
        valid: &str,
    ) -> Result<Option<T>>
    where
        T: FromText + PartialOrd,
    {
        let t = self.get(col);
        if t.is_empty() {
            return Ok(None);
        }
        match T::from_text(t) {
            Some(v) if range.contains(&v) => Ok(Some(v)),
            _ => Err(self.bad(col, valid)),
        }
    }

    /// Column `col`'s field, which must not be empty.
    pub fn text(&self, col: usize) -> Result<String> {
        match self.get(col) {
            "" => Err(self.bad(col, "a value")),
            t => Ok(t.to_string()),
        }
    }

    /// Column `col`'s field, None when empty.
    pub fn opt_text(&self, col: usize) -> Option<String> {
        match self.get(col) {
            "" => None,
            t => Some(t.to_string()),
        }
    }

    /// The value of the word in column `col`, one of `words`.
    pub fn one_of<T: Copy>(&self, col: usize, words: &[(&str, T)], valid: &str) -> Result<T> {
        let t = self.get(col);
        words
            .iter()
            .find(|(w, _)| *w == t)
            .map(|(_, v)| *v)
            .ok_or_else(|| self.bad(col, valid))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 3] = ["a", "b", "c"];

    fn header_error(text: &str, header: Header) -> Error {
        Columns::read("f.csv", text, &NAMES, header).err().unwrap()
    }

    #[test]
    fn a_missing_column_is_named_with_the_valid_ones() {
        for header in [Header::AnyOrder, Header::Exact] {
            let err = header_error("a,c\n1,2\n", header);
            assert_eq!(err.to_string(), "f.csv:1: missing column `b`");
            assert!(err.hint().unwrap().ends_with("a,b,c"));
        }
    }

    #[test]
    fn an_exact_header_is_in_order_without_other_columns() {
        assert!(Columns::read("f.csv", "c,a,b,x\n1,2,3,4\n", &NAMES, Header::AnyOrder).is_ok());
        let err = header_error("a,c,b\n1,2,3\n", Header::Exact);
        assert_eq!(err.to_string(), "f.csv:1: column 2 is `c`, not `b`");
        let err = header_error("a,b,c,x\n1,2,3,4\n", Header::Exact);
        assert_eq!(
            err.to_string(),
            "f.csv:1: column 4 (`x`) is not one of the file's"
        );
    }

    #[test]
    fn fields_are_read_by_name_and_bounded() {
        let (columns, records) =
            Columns::read("f.csv", "c,b,a\n 7 ,x,\n", &NAMES, Header::AnyOrder).unwrap();
        let rows: Vec<Row> = columns.rows(records).collect::<Result<_>>().unwrap();
        let row = &rows[0];
        assert_eq!(row.get(2), "7");
        assert_eq!(row.number::<u64>(2, 1..=9, "1 to 9").unwrap(), Some(7));
        assert_eq!(row.number::<u64>(0, 1..=9, "1 to 9").unwrap(), None);
        let err = row.number::<u64>(2, 1..=6, "1 to 6").unwrap_err();
        assert_eq!(err.to_string(), "f.csv:2: column `c` has `7`");
        assert_eq!(row.text(1).unwrap(), "x");
        assert!(row.text(0).is_err());
        assert_eq!(row.one_of(1, &[("x", 1), ("y", 2)], "x or y").unwrap(), 1);
    }

    #[test]
    fn a_short_row_names_its_line() {
        let (columns, records) =
            Columns::read("f.csv", "a,b,c\n1,2,3\n1,2\n", &NAMES, Header::Exact).unwrap();
        let err = columns.rows(records).nth(1).unwrap().unwrap_err();
        assert!(err.to_string().starts_with("f.csv:3:"), "{err}");
        assert_eq!(err.hint().as_deref(), Some("each row has 3 fields"));
    }
}
