//! What a change's samples are about: a field (by number, or by name when renumbered), an
//! enum value (in a field that uses the enum, or in a wrapper of ours), an rpc's request or
//! response type (in a wrapper) — or why a round trip shows nothing of it.

use crate::rules::{Change, RuleId};
use crate::schema::Schema;
use crate::schema::model::{Cardinality, Field, FieldType, Message, Presence};

use super::types::Types;

/// What a change's samples are about.
pub(super) enum Target {
    /// A field of message `msg`, by number.
    Field { msg: String, number: u32 },
    /// A field of message `msg` that kept its name and changed its number: the writer's
    /// number against the reader's.
    Renumbered { msg: String, name: String },
    /// An enum value, written in field `field` of message `msg` (`msg` empty: in the field
    /// of a wrapper of ours, the enum having no message of both versions that uses it).
    EnumValue {
        msg: String,
        field: u32,
        enum_name: String,
        name: String,
        number: i32,
    },
    /// An rpc's request or response: the old type read as the new one, in a wrapper.
    Rpc { old: String, new: String },
}

/// The wrapper's full name: in no package a `.proto` file can declare.
pub const WRAPPER: &str = "protolapse.prove.Wrapper";

/// A message of ours with one field, number 1, of type `ty`.
fn wrapper(ty: FieldType, closed_enum: bool) -> Message {
    let field = Field {
        number: 1,
        name: "value".into(),
        json_name: "value".into(),
        ty,
        cardinality: Cardinality::Optional,
        map: None,
        presence: if closed_enum {
            Presence::Explicit
        } else {
            Presence::Implicit
        },
        oneof: None,
        proto3_optional: false,
        default: None,
        packed: false,
        utf8_verified: true,
        deprecated: false,
        options: Default::default(),
    };
    Message {
        fields: [(1, field)].into_iter().collect(),
        ..Message::empty(WRAPPER, "")
    }
}

pub(super) fn parent(element: &str) -> Option<&str> {
    element.rsplit_once('.').map(|(p, _)| p)
}

/// For each enum, a message of both versions with a (non-map) field of it, the same on
/// both sides: the first by message name, then field number. Built once per pair.
pub(super) type Users = std::collections::HashMap<String, (String, u32)>;

pub(super) fn users(old: &Schema, new: &Schema) -> Users {
    let mut out = Users::new();
    for m in old.content.messages.values() {
        for f in m.fields.values() {
            let FieldType::Enum(e) = &f.ty else { continue };
            if f.map.is_some() || out.contains_key(e) {
                continue;
            }
            let same = new
                .content
                .messages
                .get(&m.full_name)
                .and_then(|n| n.fields.get(&f.number))
                .is_some_and(|o| o.ty == f.ty);
            if same {
                out.insert(e.clone(), (m.full_name.clone(), f.number));
            }
        }
    }
    out
}

pub(super) fn target(
    c: &Change,
    old: &Schema,
    new: &Schema,
    users: &Users,
) -> Result<Target, String> {
    let number = c.number.and_then(|n| u32::try_from(n).ok());
    let p = parent(&c.element).unwrap_or_default();
    let is_msg = |s: &Schema| s.content.messages.contains_key(p);
    if let (Some(n), true) = (number, is_msg(old) || is_msg(new)) {
        if c.rule == RuleId::FIELD_NUMBER_CHANGED {
            return Ok(Target::Renumbered {
                msg: p.to_string(),
                name: c.element.rsplit('.').next().unwrap_or_default().to_string(),
            });
        }
        return Ok(Target::Field {
            msg: p.to_string(),
            number: n,
        });
    }
    let in_enum = |s: &Schema| s.content.enums.contains_key(p);
    if let (Some(n), true) = (c.number, in_enum(old) || in_enum(new)) {
        let number = i32::try_from(n).map_err(|_| "an enum number out of range".to_string())?;
        // A message of both versions with a field of this enum type, the first by name.
        let user = users.get(p).cloned();
        let (msg, field) = user.unwrap_or_default();
        let name = c.element.rsplit('.').next().unwrap_or_default().to_string();
        return Ok(Target::EnumValue {
            msg,
            field,
            enum_name: p.to_string(),
            name,
            number,
        });
    }
    if matches!(
        c.rule,
        RuleId::RPC_INPUT_CHANGED | RuleId::RPC_OUTPUT_CHANGED
    ) {
        let side = |s: &Schema| {
            let (svc, m) = c.element.rsplit_once('.')?;
            let m = s.content.services.get(svc)?.methods.get(m)?;
            Some(if c.rule == RuleId::RPC_INPUT_CHANGED {
                m.input.clone()
            } else {
                m.output.clone()
            })
        };
        if let (Some(o), Some(n)) = (side(old), side(new)) {
            return Ok(Target::Rpc { old: o, new: n });
        }
    }
    Err(match c.rule {
        RuleId::EXTENSION_ADDED | RuleId::EXTENSION_REMOVED => {
            "extensions are not sampled yet".into()
        }
        _ => "no field or enum value of its own: nothing a round trip can show".into(),
    })
}

/// The types of one side: its schema, with the wrapper a target needs.
pub(super) fn types<'a>(t: &Target, schema: &'a Schema, old_side: bool) -> Types<'a> {
    let mut ty = Types::of(schema);
    match t {
        Target::EnumValue { msg, enum_name, .. } if msg.is_empty() => {
            let closed = schema
                .content
                .enums
                .get(enum_name)
                .is_some_and(|e| e.closed);
            ty.wrapper = Some(wrapper(FieldType::Enum(enum_name.clone()), closed));
        }
        Target::Rpc { old, new } => {
            let name = if old_side { old } else { new };
            ty.wrapper = Some(wrapper(FieldType::Message(name.clone()), false));
        }
        _ => {}
    }
    ty
}
