//! The label-selector grammar: recursive descent over `lexer` tokens, with
//! apimachinery's `labels.Parser` rules and error texts, and
//! `labels.NewRequirement`'s value checks.

use std::collections::BTreeSet;

use super::label::{Operator, Requirement};
use super::lexer::{Token, lex};
use super::names::{label_value_errors, qualified_name_errors};
use crate::api::schema::go_quote;

/// The requirements of `input`, in the order written.
pub(super) fn parse(input: &str) -> Result<Vec<Requirement>, String> {
    Parser {
        tokens: lex(input),
        pos: 0,
    }
    .parse()
}

/// Recursive descent over the token list, as apimachinery's `labels.Parser`.
struct Parser<'a> {
    tokens: Vec<(Token, &'a str)>,
    pos: usize,
}

/// Where a token is read: in `Values`, the words `in`/`notin` are plain identifiers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    KeyAndOperator,
    Values,
}

impl<'a> Parser<'a> {
    fn lookahead(&self, context: Context) -> (Token, &'a str) {
        let (token, text) = self.tokens[self.pos.min(self.tokens.len() - 1)];
        match token {
            Token::In | Token::NotIn if context == Context::Values => (Token::Identifier, text),
            _ => (token, text),
        }
    }

    fn consume(&mut self, context: Context) -> (Token, &'a str) {
        let next = self.lookahead(context);
        self.pos += 1;
        next
    }

    fn parse(&mut self) -> Result<Vec<Requirement>, String> {
        let mut requirements = Vec::new();
        loop {
            let (token, text) = self.lookahead(Context::Values);
            match token {
                Token::Identifier | Token::DoesNotExist => {
                    let r = self
                        .requirement()
                        .map_err(|e| format!("unable to parse requirement: {e}"))?;
                    requirements.push(r);
                    match self.consume(Context::Values) {
                        (Token::EndOfString, _) => return Ok(requirements),
                        (Token::Comma, _) => {
                            let (next, text) = self.lookahead(Context::Values);
                            if !matches!(next, Token::Identifier | Token::DoesNotExist) {
                                return Err(format!(
                                    "found '{text}', expected: identifier after ','"
                                ));
                            }
                        }
                        (_, text) => {
                            return Err(format!(
                                "found '{text}', expected: ',' or 'end of string'"
                            ));
                        }
                    }
                }
                Token::EndOfString => return Ok(requirements),
                _ => {
                    return Err(format!(
                        "found '{text}', expected: !, identifier, or 'end of string'"
                    ));
                }
            }
        }
    }

    fn requirement(&mut self) -> Result<Requirement, String> {
        let (key, inferred) = self.key_and_inferred_operator()?;
        if let Some(operator) = inferred {
            return new_requirement(key, operator, Vec::new());
        }
        let operator = self.operator()?;
        let values = match operator {
            Operator::In | Operator::NotIn => self.value_set()?,
            _ => vec![self.exact_value()?],
        };
        new_requirement(key, operator, values)
    }

    /// The key, and `Exists`/`DoesNotExist` when no operator follows.
    fn key_and_inferred_operator(&mut self) -> Result<(String, Option<Operator>), String> {
        let (mut token, mut text) = self.consume(Context::Values);
        let negated = token == Token::DoesNotExist;
        if negated {
            (token, text) = self.consume(Context::Values);
        }
        if token != Token::Identifier {
            return Err(format!("found '{text}', expected: identifier"));
        }
        let errs = qualified_name_errors(text);
        if !errs.is_empty() {
            // Kubernetes validates with a nil field path here, printed `<nil>`.
            return Err(format!(
                "<nil>: Invalid value: {}: {}",
                go_quote(text),
                errs.join("; ")
            ));
        }
        let at_end = matches!(
            self.lookahead(Context::Values).0,
            Token::EndOfString | Token::Comma
        );
        let inferred = match (negated, at_end) {
            (true, _) => Some(Operator::DoesNotExist),
            (false, true) => Some(Operator::Exists),
            (false, false) => None,
        };
        Ok((text.to_owned(), inferred))
    }

    fn operator(&mut self) -> Result<Operator, String> {
        Ok(match self.consume(Context::KeyAndOperator) {
            (Token::In, _) => Operator::In,
            (Token::Equals, _) => Operator::Equals,
            (Token::DoubleEquals, _) => Operator::DoubleEquals,
            (Token::GreaterThan, _) => Operator::GreaterThan,
            (Token::LessThan, _) => Operator::LessThan,
            (Token::NotIn, _) => Operator::NotIn,
            (Token::NotEquals, _) => Operator::NotEquals,
            (_, text) => {
                return Err(format!(
                    "found '{text}', expected: in, notin, =, ==, !=, gt, lt"
                ));
            }
        })
    }

    /// `(a, b)`; stray commas contribute the empty value; `()` is refused.
    fn value_set(&mut self) -> Result<Vec<String>, String> {
        let (token, text) = self.consume(Context::Values);
        if token != Token::OpenPar {
            return Err(format!("found '{text}' expected: '('"));
        }
        let (token, text) = self.lookahead(Context::Values);
        match token {
            Token::Identifier | Token::Comma => {
                let values = self.identifier_list()?;
                match self.consume(Context::Values) {
                    (Token::ClosedPar, _) => Ok(values),
                    (_, text) => Err(format!("found '{text}', expected: ')'")),
                }
            }
            // Kubernetes' parser reads `()` as the set {""}, which then
            // selects by a value nobody wrote; cairn refuses it (issue #27).
            Token::ClosedPar => {
                Err("for 'in', 'notin' operators, values set can't be empty".into())
            }
            _ => Err(format!("found '{text}', expected: ',', ')' or identifier")),
        }
    }

    fn identifier_list(&mut self) -> Result<Vec<String>, String> {
        let mut values = Vec::new();
        loop {
            match self.consume(Context::Values) {
                (Token::Identifier, text) => {
                    values.push(text.to_owned());
                    match self.lookahead(Context::Values) {
                        (Token::Comma, _) => {}
                        (Token::ClosedPar, _) => return Ok(values),
                        (_, text) => return Err(format!("found '{text}', expected: ',' or ')'")),
                    }
                }
                (Token::Comma, _) => {
                    if values.is_empty() {
                        values.push(String::new());
                    }
                    match self.lookahead(Context::Values).0 {
                        Token::ClosedPar => {
                            values.push(String::new());
                            return Ok(values);
                        }
                        Token::Comma => {
                            self.consume(Context::Values);
                            values.push(String::new());
                        }
                        _ => {}
                    }
                }
                (_, text) => return Err(format!("found '{text}', expected: ',', or identifier")),
            }
        }
    }

    /// The value after `=`, `==`, `!=`, `>`, `<`; nothing there means "".
    fn exact_value(&mut self) -> Result<String, String> {
        if matches!(
            self.lookahead(Context::Values).0,
            Token::EndOfString | Token::Comma
        ) {
            return Ok(String::new());
        }
        match self.consume(Context::Values) {
            (Token::Identifier, text) => Ok(text.to_owned()),
            (_, text) => Err(format!("found '{text}', expected: identifier")),
        }
    }
}

/// `labels.NewRequirement`: value checks per operator, errors joined as
/// Kubernetes aggregates them (one bare, several as `[a, b]`).
fn new_requirement(
    key: String,
    operator: Operator,
    values: Vec<String>,
) -> Result<Requirement, String> {
    let values: Vec<String> = values
        .into_iter()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut errs = Vec::new();
    if matches!(operator, Operator::GreaterThan | Operator::LessThan) {
        for (i, v) in values.iter().enumerate() {
            if v.parse::<i64>().is_err() {
                errs.push(format!(
                    "values[{i}]: Invalid value: {}: for 'Gt', 'Lt' operators, the value must be an integer",
                    go_quote(v)
                ));
            }
        }
    }
    for (i, v) in values.iter().enumerate() {
        let problems = label_value_errors(v);
        if !problems.is_empty() {
            errs.push(format!(
                "values[{i}]: Invalid value: {}: {}",
                go_quote(v),
                problems.join("; ")
            ));
        }
    }
    match errs.len() {
        0 => Ok(Requirement {
            key,
            operator,
            values,
        }),
        1 => Err(errs.remove(0)),
        _ => Err(format!("[{}]", errs.join(", "))),
    }
}
