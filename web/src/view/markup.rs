//! Markup written as text, escaped by construction. The page's read-only
//! parts (the chart's SVG, the grid's table, the tables, the prose lines)
//! are given to yew whole, as text, which is a fraction of the module's
//! code the same nodes take built by `html!`; [`Markup`] is the one place
//! that writes such text. Element and attribute names are the page's own
//! (`&'static str`); every attribute value and every text goes through
//! [`Escaped`] on its way in, so nothing a user, a file or the data gives
//! can add an element or an attribute.

use std::fmt::{self, Display, Write as _};
use yew::{AttrValue, Html};

/// Markup text under construction: `open(tag).attr(k, v).text(s).close()`.
/// Elements are closed in order ([`Markup::close`] ends the innermost one
/// open) and any left open are closed by [`Markup::html`].
#[derive(Default)]
pub(crate) struct Markup {
    out: String,
    /// The elements open, innermost last.
    open: Vec<&'static str>,
    /// The innermost element's start tag still takes attributes (its `>`
    /// is not written yet).
    in_start_tag: bool,
}

impl Markup {
    pub(crate) fn new() -> Markup {
        Markup::default()
    }

    /// Ends a pending start tag with its `>`.
    fn content(&mut self) {
        if std::mem::take(&mut self.in_start_tag) {
            self.out.push('>');
        }
    }

    /// Opens an element: its start tag takes attributes until the next text,
    /// element or close.
    pub(crate) fn open(&mut self, tag: &'static str) -> &mut Markup {
        self.content();
        self.out.push('<');
        self.out.push_str(tag);
        self.open.push(tag);
        self.in_start_tag = true;
        self
    }

    /// An attribute of the element just opened, its value escaped.
    pub(crate) fn attr(&mut self, name: &'static str, value: impl Display) -> &mut Markup {
        self.attr_dyn(name, &value)
    }

    fn attr_dyn(&mut self, name: &'static str, value: &dyn Display) -> &mut Markup {
        debug_assert!(self.in_start_tag, "attribute {name} outside a start tag");
        self.out.push(' ');
        self.out.push_str(name);
        self.out.push_str("=\"");
        self.escaped(value);
        self.out.push('"');
        self
    }

    /// An attribute when there is a value for it; none otherwise.
    pub(crate) fn attr_opt(
        &mut self,
        name: &'static str,
        value: Option<impl Display>,
    ) -> &mut Markup {
        match value {
            Some(v) => self.attr_dyn(name, &v),
            None => self,
        }
    }

    /// A boolean attribute (`selected`), when `on`.
    pub(crate) fn flag(&mut self, name: &'static str, on: bool) -> &mut Markup {
        debug_assert!(self.in_start_tag, "attribute {name} outside a start tag");
        if on {
            self.out.push(' ');
            self.out.push_str(name);
        }
        self
    }

    /// Text, escaped.
    pub(crate) fn text(&mut self, text: impl Display) -> &mut Markup {
        self.content();
        self.escaped(&text);
        self
    }

    /// Ends the innermost element open.
    pub(crate) fn close(&mut self) -> &mut Markup {
        self.content();
        if let Some(tag) = self.open.pop() {
            self.out.push_str("</");
            self.out.push_str(tag);
            self.out.push('>');
        }
        self
    }

    /// An element holding only text: `open(tag).text(text).close()`.
    pub(crate) fn leaf(&mut self, tag: &'static str, text: impl Display) -> &mut Markup {
        self.open(tag);
        self.content();
        self.escaped(&text);
        self.close()
    }

    /// Writes `text` escaped, where the caller has placed it.
    fn escaped(&mut self, text: &dyn Display) {
        let _ = write!(Escaped(&mut self.out), "{text}");
    }

    /// The markup so far as text, every element closed.
    pub(crate) fn finish(&mut self) -> String {
        while !self.open.is_empty() {
            self.close();
        }
        self.content();
        std::mem::take(&mut self.out)
    }

    /// The markup so far, every element closed, for the page: the one place
    /// markup text becomes nodes.
    pub(crate) fn html(&mut self) -> Html {
        Html::from_html_unchecked(AttrValue::from(self.finish()))
    }
}

/// A writer that escapes `&`, `<`, `>` and `"` into the string it writes to,
/// so what it writes can stand in an element's text or a quoted attribute.
struct Escaped<'a>(&'a mut String);

impl fmt::Write for Escaped<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.chars() {
            match c {
                '&' => self.0.push_str("&amp;"),
                '<' => self.0.push_str("&lt;"),
                '>' => self.0.push_str("&gt;"),
                '"' => self.0.push_str("&quot;"),
                c => self.0.push(c),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_values_are_escaped_tags_closed() {
        let mut m = Markup::new();
        m.open("p")
            .attr("title", r#"a "quoted" <b> & more"#)
            .attr_opt("data-n", Some(3))
            .attr_opt("data-none", None::<u64>)
            .flag("hidden", true)
            .flag("open", false)
            .text("<script>alert(1)</script>")
            .open("span")
            .close()
            .leaf("b", format_args!("{} & {}", 1, "<2>"));
        assert_eq!(
            m.finish(),
            r#"<p title="a &quot;quoted&quot; &lt;b&gt; &amp; more" data-n="3" hidden>&lt;script&gt;alert(1)&lt;/script&gt;<span></span><b>1 &amp; &lt;2&gt;</b></p>"#
        );
        // Finished, the builder starts again empty.
        assert_eq!(m.open("i").finish(), "<i></i>");
    }
}
