//! Text from files shown on a terminal.
//!
//! Names and values vzplan prints come from files and layout lines nobody here wrote: an HDF5
//! dataset called `"\x1b]0;pwned\x07"` retitles the terminal, `"\x1b[2J"` clears it, a carriage
//! return hides what came before it, and a newline forges a line of the report. Every piece of
//! such text is shown through [`shown`]: C0 controls (newline and tab too), DEL and the C1
//! controls (U+0080–U+009F, which some terminals obey as 8-bit escapes) become visible escapes,
//! the way `ls` and ripgrep quote names. vzplan's own newlines and tabs are written around the
//! pieces, never inside them.
//!
//! ```text
//! "tas\x1b[2J"   →  tas\x1b[2J   (the four characters `\x1b` instead of ESC)
//! "a\nb"         →  a\nb
//! "\u{9b}31m"    →  \u{9b}31m
//! ```
//!
//! JSON printed for scripts escapes the same characters ([`json_safe`]): serde_json leaves DEL
//! and C1 as they are, which is valid JSON but not safe to `cat`.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether a character is one a terminal may act on: C0 (below U+0020), DEL or C1.
pub fn is_control(c: char) -> bool {
    matches!(c, '\0'..='\x1f' | '\x7f' | '\u{80}'..='\u{9f}')
}

/// The text with every control character (newline and tab included) written as a visible escape:
/// `\n`, `\t`, `\r`, `\x1b`, `\x7f`, `\u{9b}`. Text without one is borrowed as it is.
pub fn shown(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        push_shown(&mut out, c);
    }
    Cow::Owned(out)
}

/// As [`shown`], but keeps newlines: for a message vzplan composed of several lines, whose pieces
/// from files were already shown one by one. The last line of defence before a terminal.
pub fn shown_lines(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| c != '\n' && is_control(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c == '\n' {
            out.push(c);
        } else {
            push_shown(&mut out, c);
        }
    }
    Cow::Owned(out)
}

fn push_shown(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        '\0'..='\x1f' | '\x7f' => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        '\u{80}'..='\u{9f}' => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
        c => out.push(c),
    }
}

/// A JSON document as text with DEL and the C1 controls escaped too (`\u007f`, `\u009b`), for
/// printing; the same JSON value as serde_json's own text.
pub fn json_safe(text: String) -> String {
    if !text
        .chars()
        .any(|c| matches!(c, '\x7f' | '\u{80}'..='\u{9f}'))
    {
        return text;
    }
    // Outside strings JSON has no such characters, so every one sits inside a string, where
    // `\uXXXX` means the same character.
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if matches!(c, '\x7f' | '\u{80}'..='\u{9f}') {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_shown_and_plain_text_is_borrowed() {
        assert!(matches!(shown("tas_day"), Cow::Borrowed(_)));
        assert!(matches!(shown("température ünïcode"), Cow::Borrowed(_)));
        assert_eq!(shown("a\x1b]0;x\x07b"), "a\\x1b]0;x\\x07b");
        assert_eq!(shown("a\x1b[2J"), "a\\x1b[2J");
        assert_eq!(shown("ok\rforged"), "ok\\rforged");
        assert_eq!(shown("a\nb\tc"), "a\\nb\\tc");
        assert_eq!(shown("\x7f\u{9b}31m\u{85}"), "\\x7f\\u{9b}31m\\u{85}");
        assert_eq!(
            shown("\u{a0}\u{7e}"),
            "\u{a0}~",
            "NBSP and ~ are not controls"
        );
        assert_eq!(shown_lines("a\nb\x1b"), "a\nb\\x1b");
        assert!(matches!(shown_lines("a\nb"), Cow::Borrowed(_)));
    }

    #[test]
    fn printed_json_escapes_del_and_c1_and_means_the_same() {
        let v = serde_json::json!({"name": "a\u{7f}b\u{9b}c\u{1b}d", "n": 1});
        let text = serde_json::to_string_pretty(&v).unwrap();
        assert!(text.contains('\u{9b}'), "serde_json leaves C1 as is");
        let safe = json_safe(text);
        assert!(!safe.chars().any(is_control_but_layout), "{safe}");
        assert!(safe.contains("\\u007f") && safe.contains("\\u009b") && safe.contains("\\u001b"));
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, v);
    }

    fn is_control_but_layout(c: char) -> bool {
        c != '\n' && is_control(c)
    }
}
