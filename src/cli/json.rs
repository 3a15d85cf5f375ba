//! A small JSON writer for the fixed shapes the command line prints
//! (`analyse --json`, `epd --json`): a value tree written compactly, with
//! strings escaped as RFC 8259 asks. A crate would add nothing here.

use std::fmt::{self, Write as _};

#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i64),
    /// Written with up to three decimals; not finite becomes `null`.
    Float(f64),
    Str(String),
    Array(Vec<Json>),
    /// Keys in the order given.
    Object(Vec<(&'static str, Json)>),
}

impl Json {
    pub fn str(s: impl Into<String>) -> Json {
        Json::Str(s.into())
    }

    pub fn uint(n: u64) -> Json {
        // Node counts and times fit in i64 for any search that can run.
        Json::Int(i64::try_from(n).unwrap_or(i64::MAX))
    }

    pub fn strings<S: Into<String>>(items: impl IntoIterator<Item = S>) -> Json {
        Json::Array(items.into_iter().map(|s| Json::Str(s.into())).collect())
    }

    pub fn opt<T>(value: Option<T>, f: impl FnOnce(T) -> Json) -> Json {
        value.map_or(Json::Null, f)
    }
}

fn escape(s: &str, f: &mut fmt::Formatter) -> fmt::Result {
    f.write_char('"')?;
    for c in s.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            c if (c as u32) < 0x20 => write!(f, "\\u{:04x}", c as u32)?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Json::Null => f.write_str("null"),
            Json::Bool(b) => write!(f, "{b}"),
            Json::Int(n) => write!(f, "{n}"),
            Json::Float(x) if x.is_finite() => {
                let s = format!("{x:.3}");
                let s = s.trim_end_matches('0').trim_end_matches('.');
                f.write_str(if s == "-0" { "0" } else { s })
            }
            Json::Float(_) => f.write_str("null"),
            Json::Str(s) => escape(s, f),
            Json::Array(items) => {
                f.write_char('[')?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_char(',')?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_char(']')
            }
            Json::Object(fields) => {
                f.write_char('{')?;
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_char(',')?;
                    }
                    escape(k, f)?;
                    write!(f, ":{v}")?;
                }
                f.write_char('}')
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_compact_escaped_json() {
        let v = Json::Object(vec![
            ("s", Json::str("a\"b\\c\n\u{1}é")),
            ("n", Json::Int(-3)),
            ("x", Json::Float(0.25)),
            ("whole", Json::Float(2.0)),
            ("nan", Json::Float(f64::NAN)),
            ("a", Json::Array(vec![Json::Null, Json::Bool(true)])),
            ("e", Json::Object(vec![])),
        ]);
        assert_eq!(
            v.to_string(),
            r#"{"s":"a\"b\\c\n\u0001é","n":-3,"x":0.25,"whole":2,"nan":null,"a":[null,true],"e":{}}"#
        );
    }
}
