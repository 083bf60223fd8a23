//! A linearizability checker: Wing & Gong's depth-first search for an order
//! of the calls that respects real time and that a sequential model accepts,
//! with Lowe's memoization of (calls linearized, model state) as Porcupine
//! does, run separately on each key's calls.

pub mod register;
pub mod revisions;

use std::collections::{BTreeMap, HashSet};
use std::fmt::Debug;
use std::hash::Hash;

/// A sequential specification.
pub trait Model {
    type State: Clone + Eq + Hash + Debug;
    /// A request together with the answer it got.
    type Op: Debug;
    fn init(&self) -> Self::State;
    /// The state after `op`, if its answer is one the model gives in `state`.
    fn step(&self, state: &Self::State, op: &Self::Op) -> Option<Self::State>;
}

/// One completed call, with its invocation and response instants (any
/// monotonic clock, in one unit).
#[derive(Clone, Debug)]
pub struct Call<O> {
    pub client: usize,
    pub invoked: u64,
    pub returned: u64,
    pub op: O,
}

/// Why no order explains a history: the longest order the search found and
/// the calls none of which can come next.
#[derive(Debug)]
pub struct Stuck<S> {
    /// Indices (into the checked calls) of the longest linearization found.
    pub order: Vec<usize>,
    /// The model state after it.
    pub state: S,
    /// The calls that could come next by real time; the model rejects each.
    pub next: Vec<usize>,
}

/// A set of call indices.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    fn has(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }
    fn flip(&mut self, i: usize) {
        self.0[i / 64] ^= 1 << (i % 64);
    }
}

/// The calls that may be linearized next: each pending call invoked before
/// every pending call returned (one that returned earlier must come first).
fn next_calls<O>(calls: &[Call<O>], done: &Bits) -> Vec<usize> {
    let pending = || (0..calls.len()).filter(|&i| !done.has(i));
    let Some(horizon) = pending().map(|i| calls[i].returned).min() else {
        return Vec::new();
    };
    pending().filter(|&i| calls[i].invoked <= horizon).collect()
}

/// One level of the search: a state and the calls still to try from it.
struct Frame<S> {
    state: S,
    next: Vec<usize>,
    tried: usize,
}

/// Checks one key's calls.
///
/// # Errors
/// Where the search got stuck when no order explains the calls.
pub fn check<M: Model>(model: &M, calls: &[Call<M::Op>]) -> Result<(), Stuck<M::State>> {
    let mut done = Bits::new(calls.len());
    let mut order: Vec<usize> = Vec::new();
    let mut seen: HashSet<(Bits, M::State)> = HashSet::new();
    let mut frames = vec![Frame {
        state: model.init(),
        next: next_calls(calls, &done),
        tried: 0,
    }];
    let mut deepest = Stuck {
        order: Vec::new(),
        state: model.init(),
        next: frames[0].next.clone(),
    };
    while let Some(top) = frames.last_mut() {
        if order.len() == calls.len() {
            return Ok(());
        }
        let Some(&i) = top.next.get(top.tried) else {
            frames.pop();
            if let Some(i) = order.pop() {
                done.flip(i);
            }
            continue;
        };
        top.tried += 1;
        let Some(state) = model.step(&top.state, &calls[i].op) else {
            continue;
        };
        done.flip(i);
        // Reached before with the same state: everything after was tried.
        if !seen.insert((done.clone(), state.clone())) {
            done.flip(i);
            continue;
        }
        order.push(i);
        let next = next_calls(calls, &done);
        if order.len() > deepest.order.len() {
            deepest = Stuck {
                order: order.clone(),
                state: state.clone(),
                next: next.clone(),
            };
        }
        frames.push(Frame {
            state,
            next,
            tried: 0,
        });
    }
    Err(deepest)
}

/// A key whose calls no order explains.
#[derive(Debug)]
pub struct Violation<K, M: Model> {
    pub key: K,
    pub calls: Vec<Call<M::Op>>,
    pub stuck: Stuck<M::State>,
}

/// Checks each key's calls on its own (keys are independent objects).
#[must_use]
pub fn check_by_key<K: Ord + Clone, M: Model>(
    model: &M,
    calls: Vec<Call<M::Op>>,
    key: impl Fn(&M::Op) -> K,
) -> Vec<Violation<K, M>> {
    let mut keys: BTreeMap<K, Vec<Call<M::Op>>> = BTreeMap::new();
    for c in calls {
        keys.entry(key(&c.op)).or_default().push(c);
    }
    keys.into_iter()
        .filter_map(|(key, mut calls)| {
            calls.sort_by_key(|c| c.invoked);
            check(model, &calls)
                .err()
                .map(|stuck| Violation { key, calls, stuck })
        })
        .collect()
}

impl<K: Debug, M: Model> Violation<K, M> {
    /// The violation in a few lines: the end of the longest order found, the
    /// state it leaves, and the calls none of which fits next (times in µs
    /// when the clock counts nanoseconds).
    #[must_use]
    pub fn describe(&self, context: usize) -> String {
        let line = |i: usize| {
            let c = &self.calls[i];
            format!(
                "  #{i:<4} client {:>2}  [{:>9} .. {:>9}]  {:?}",
                c.client,
                c.invoked / 1000,
                c.returned / 1000,
                c.op
            )
        };
        let order = &self.stuck.order;
        let skipped = order.len().saturating_sub(context);
        let mut out = format!(
            "key {:?}: {} calls, the longest linearization orders {} of them",
            self.key,
            self.calls.len(),
            order.len()
        );
        if skipped > 0 {
            out.push_str(&format!(" (its first {skipped} not shown)"));
        }
        out.push_str(":\n");
        for &i in &order[skipped..] {
            out.push_str(&line(i));
            out.push('\n');
        }
        out.push_str(&format!(
            "then state {:?}, and none of these can come next:\n",
            self.stuck.state
        ));
        for &i in &self.stuck.next {
            out.push_str(&line(i));
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests;
