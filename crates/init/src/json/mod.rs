//! JSON settings files edited as text: [`parse`] keeps every value's span, [`edit`] splices
//! children in and out, [`value`] renders what init writes in the file's own style. Nothing
//! is re-serialized, so the user's formatting, key order and (where the agent reads them)
//! comments survive, and a removal gives back the bytes an addition started from.

pub(crate) mod edit;
pub(crate) mod parse;
pub(crate) mod value;

pub(crate) use edit::{Child, append, remove, replace};
pub(crate) use parse::{Kind, Node, line_column, parse};
pub(crate) use value::{Json, Style};
