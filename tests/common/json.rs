//! A minimal JSON reader, so that tests parse what the binary prints
//! (`analyse --json`, `epd --json`) independently of the writer that
//! produced it. It accepts exactly RFC 8259 JSON and panics with the
//! offset on anything else.

use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Value>),
    Object(BTreeMap<String, Value>),
}

impl Value {
    /// The member `key` of an object; panics if absent or not an object.
    pub fn get(&self, key: &str) -> &Value {
        match self {
            Value::Object(m) => m
                .get(key)
                .unwrap_or_else(|| panic!("no key '{key}' in {self:?}")),
            other => panic!("not an object: {other:?}"),
        }
    }

    pub fn has(&self, key: &str) -> bool {
        matches!(self, Value::Object(m) if m.contains_key(key))
    }

    pub fn str(&self) -> &str {
        match self {
            Value::String(s) => s,
            other => panic!("not a string: {other:?}"),
        }
    }

    pub fn num(&self) -> f64 {
        match self {
            Value::Number(n) => *n,
            other => panic!("not a number: {other:?}"),
        }
    }

    pub fn arr(&self) -> &[Value] {
        match self {
            Value::Array(a) => a,
            other => panic!("not an array: {other:?}"),
        }
    }
}

pub fn parse(text: &str) -> Value {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    let v = p.value();
    p.ws();
    assert_eq!(p.i, p.s.len(), "trailing text at {} in {text}", p.i);
    v
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && b" \t\r\n".contains(&self.s[self.i]) {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) {
        self.ws();
        assert_eq!(
            self.s.get(self.i),
            Some(&b),
            "expected '{}' at {}",
            b as char,
            self.i
        );
        self.i += 1;
    }

    fn lit(&mut self, word: &str, v: Value) -> Value {
        assert!(
            self.s[self.i..].starts_with(word.as_bytes()),
            "bad literal at {}",
            self.i
        );
        self.i += word.len();
        v
    }

    fn value(&mut self) -> Value {
        self.ws();
        match self.s.get(self.i) {
            Some(b'n') => self.lit("null", Value::Null),
            Some(b't') => self.lit("true", Value::Bool(true)),
            Some(b'f') => self.lit("false", Value::Bool(false)),
            Some(b'"') => Value::String(self.string()),
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Value::Array(items);
                }
                loop {
                    items.push(self.value());
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        _ => break,
                    }
                }
                self.eat(b']');
                Value::Array(items)
            }
            Some(b'{') => {
                self.i += 1;
                let mut map = BTreeMap::new();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Value::Object(map);
                }
                loop {
                    self.ws();
                    let k = self.string();
                    self.eat(b':');
                    let v = self.value();
                    assert!(map.insert(k, v).is_none(), "duplicate key at {}", self.i);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        _ => break,
                    }
                }
                self.eat(b'}');
                Value::Object(map)
            }
            _ => {
                let start = self.i;
                while self.i < self.s.len() && b"+-0123456789.eE".contains(&self.s[self.i]) {
                    self.i += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.i]).unwrap();
                // JSON numbers: no '+', no leading zeros, digits after '.'.
                let leading_zero =
                    text.len() > 1 && text.starts_with('0') && !text.starts_with("0.");
                let bad =
                    text.is_empty() || text.starts_with('+') || text.ends_with('.') || leading_zero;
                assert!(!bad, "bad number '{text}' at {start}");
                Value::Number(
                    text.parse()
                        .unwrap_or_else(|_| panic!("bad number at {start}")),
                )
            }
        }
    }

    fn string(&mut self) -> String {
        assert_eq!(
            self.s.get(self.i),
            Some(&b'"'),
            "expected a string at {}",
            self.i
        );
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let b = *self.s.get(self.i).expect("unterminated string");
            self.i += 1;
            match b {
                b'"' => break,
                b'\\' => {
                    let e = self.s[self.i];
                    self.i += 1;
                    match e {
                        b'"' | b'\\' | b'/' => out.push(e),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'u' => {
                            let hex = std::str::from_utf8(&self.s[self.i..self.i + 4]).unwrap();
                            let c = char::from_u32(u32::from_str_radix(hex, 16).unwrap())
                                .expect("a \\u escape outside the BMP's scalar values");
                            self.i += 4;
                            out.extend(c.to_string().bytes());
                        }
                        _ => panic!("bad escape at {}", self.i),
                    }
                }
                b if b < 0x20 => panic!("control character in a string at {}", self.i),
                b => out.push(b),
            }
        }
        String::from_utf8(out).expect("strings are UTF-8")
    }
}
