//! Element counts of a JSON text's arrays, found in one pass before the
//! parse, so that large arrays are allocated once at their final size.

/// The element count of every array in a JSON text, in the order the
/// arrays open (the order the parser reads them in); `None` when the text
/// is not well nested, which the parser then reports.
pub(super) fn array_lengths(bytes: &[u8]) -> Option<Vec<usize>> {
    /// An open array (its slot in the result) or object (`None`).
    struct Open {
        slot: Option<usize>,
        commas: usize,
        items: bool,
    }
    fn item(stack: &mut [Open]) {
        if let Some(top) = stack.last_mut() {
            top.items = true;
        }
    }
    let mut lengths = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                item(&mut stack);
                i += 1;
                loop {
                    let at = i + memchr::memchr2(b'"', b'\\', bytes.get(i..)?)?;
                    if bytes[at] == b'"' {
                        i = at;
                        break;
                    }
                    i = at + 2;
                }
            }
            open @ (b'[' | b'{') => {
                item(&mut stack);
                let slot = (open == b'[').then(|| {
                    lengths.push(0);
                    lengths.len() - 1
                });
                stack.push(Open {
                    slot,
                    commas: 0,
                    items: false,
                });
            }
            b']' | b'}' => {
                let open = stack.pop()?;
                if let Some(slot) = open.slot {
                    lengths[slot] = if open.items { open.commas + 1 } else { 0 };
                }
            }
            b',' => {
                if let Some(top) = stack.last_mut() {
                    top.commas += 1;
                }
            }
            b' ' | b'\n' | b'\r' | b'\t' | b':' => {}
            _ => item(&mut stack),
        }
        i += 1;
    }
    Some(lengths)
}
