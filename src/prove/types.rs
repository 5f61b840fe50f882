//! The types a round trip reads with: a version's schema, and at most one wrapper message
//! of our own (a field of an enum no message uses, or of an rpc's request or response
//! type), so that such a change has bytes to show.

use crate::schema::Schema;
use crate::schema::model::{Enum, Message};

/// A version's messages and enums, and the wrapper when there is one.
pub struct Types<'a> {
    pub schema: &'a Schema,
    pub wrapper: Option<Message>,
}

impl<'a> Types<'a> {
    pub fn of(schema: &'a Schema) -> Types<'a> {
        Types {
            schema,
            wrapper: None,
        }
    }

    pub fn message(&self, name: &str) -> Option<&Message> {
        match &self.wrapper {
            Some(w) if w.full_name == name => Some(w),
            _ => self.schema.content.message(name),
        }
    }

    pub fn enum_(&self, name: &str) -> Option<&Enum> {
        self.schema.content.enum_(name)
    }
}
