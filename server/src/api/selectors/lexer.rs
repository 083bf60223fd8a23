//! Tokens of the label-selector grammar, scanned the way apimachinery's
//! `labels.Lexer` scans them (so errors quote the same pieces).

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Token {
    EndOfString,
    ClosedPar,
    Comma,
    DoesNotExist,
    DoubleEquals,
    Equals,
    GreaterThan,
    Identifier,
    In,
    LessThan,
    NotEquals,
    NotIn,
    OpenPar,
}

fn keyword(s: &str) -> Option<Token> {
    Some(match s {
        ")" => Token::ClosedPar,
        "," => Token::Comma,
        "!" => Token::DoesNotExist,
        "==" => Token::DoubleEquals,
        "=" => Token::Equals,
        ">" => Token::GreaterThan,
        "in" => Token::In,
        "<" => Token::LessThan,
        "!=" => Token::NotEquals,
        "notin" => Token::NotIn,
        "(" => Token::OpenPar,
        _ => return None,
    })
}

fn is_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

fn is_special(c: char) -> bool {
    matches!(c, '=' | '!' | '(' | ')' | ',' | '>' | '<')
}

/// All tokens of `input`, ending with `EndOfString` (whose text is empty).
pub(super) fn lex(input: &str) -> Vec<(Token, &str)> {
    let mut tokens = Vec::new();
    let mut rest = input.trim_start_matches(is_whitespace);
    while let Some(c) = rest.chars().next() {
        let len = if is_special(c) {
            // Longest run of symbols that is still a token: `!=`, `==`, else one.
            // `get`: the second byte may fall inside a multi-byte character.
            if rest.get(..2).and_then(keyword).is_some() {
                2
            } else {
                1
            }
        } else {
            rest.find(|c| is_whitespace(c) || is_special(c))
                .unwrap_or(rest.len())
        };
        let text = &rest[..len];
        tokens.push((keyword(text).unwrap_or(Token::Identifier), text));
        rest = rest[len..].trim_start_matches(is_whitespace);
    }
    tokens.push((Token::EndOfString, ""));
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(input: &str) -> Vec<Token> {
        lex(input).into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn scans_symbols_keywords_and_identifiers() {
        use Token::*;
        assert_eq!(
            kinds("a=b,c==d,e!=f"),
            [
                Identifier,
                Equals,
                Identifier,
                Comma,
                Identifier,
                DoubleEquals,
                Identifier,
                Comma,
                Identifier,
                NotEquals,
                Identifier,
                EndOfString
            ]
        );
        assert_eq!(
            kinds(" x in (a, b) , y notin(c),!z,w>1,v<2 "),
            [
                Identifier,
                In,
                OpenPar,
                Identifier,
                Comma,
                Identifier,
                ClosedPar,
                Comma,
                Identifier,
                NotIn,
                OpenPar,
                Identifier,
                ClosedPar,
                Comma,
                DoesNotExist,
                Identifier,
                Comma,
                Identifier,
                GreaterThan,
                Identifier,
                Comma,
                Identifier,
                LessThan,
                Identifier,
                EndOfString
            ]
        );
        // `!(` is two tokens; `=!` too.
        assert_eq!(
            kinds("!(=!"),
            [DoesNotExist, OpenPar, Equals, DoesNotExist, EndOfString]
        );
        assert_eq!(
            lex("example.com/app-x"),
            [(Identifier, "example.com/app-x"), (EndOfString, "")]
        );
        assert_eq!(kinds("\t\n"), [EndOfString]);
    }
}
