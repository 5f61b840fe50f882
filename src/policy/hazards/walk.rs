//! The walk over the history: each message, enum and message's extensions followed on its
//! own, all of them in parallel (a story depends on its own declarations only), and the
//! hazards put in the order they show: by version, then buf dependencies, messages,
//! extensions, extensions gone, enums, each by name.

use rayon::prelude::*;

use super::named::{Index, Look, has_own};
use super::{
    Container, Hazard, NO_EXTENSIONS, dependencies, enumeration, extensions, message, own_enum,
    own_enums, own_message, own_messages,
};
use crate::diff::Reach;
use crate::judge::Scope;
use crate::load::{Loaded, lineage};
use crate::schema::model::Content;

/// Where a hazard goes among those of its version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Phase {
    Dependency,
    Message,
    Extensions,
    ExtensionsGone,
    Enum,
}

/// A hazard with its place: (version, phase, container name).
type Placed<'a> = (usize, Phase, &'a str, Hazard);

/// A set of names, hashed with foldhash (seeded per set).
type Names<'a> = foldhash::HashSet<&'a str>;

/// Every hazard of the history, in the order they show. With a root, only the messages and
/// enums it reaches in some version are followed.
pub fn find(versions: &[Loaded], scope: &Scope) -> Vec<Hazard> {
    let mut placed: Vec<Placed<'_>> = Vec::new();
    let previous = lineage::previous_of_each(versions);
    for (i, v) in versions.iter().enumerate() {
        if let Some(prev) = previous[i].and_then(|p| versions.get(p.index())) {
            let mut out = Vec::new();
            dependencies::moved(prev, v, i, &mut out);
            placed.extend(out.into_iter().map(|h| (i, Phase::Dependency, "", h)));
        }
    }
    // Each version whose content is new: what the root reaches there (None: everything). A
    // set: the lookup runs once per message and enum (a 50,000-type root was quadratic).
    let reach: Vec<Option<Option<Names<'_>>>> = versions
        .par_iter()
        .map(|v| {
            let content = &v.schema().filter(|_| v.unchanged_since.is_none())?.content;
            Some(scope.root().map(|r| {
                if scope.present_in(content) {
                    Reach::of(content, r).names().collect()
                } else {
                    Names::default()
                }
            }))
        })
        .collect();
    let in_scope = |i: usize, name: &str| {
        reach.get(i).is_some_and(|r| {
            r.as_ref()
                .is_some_and(|r| r.as_ref().is_none_or(|s| s.contains(name)))
        })
    };
    // The containers: messages and enums by full name (one story when a name changes kind),
    // and the extensions of each message. With a root, a version's are among what it reaches
    // there (a few of its declarations), looked up by name.
    let mut types: Names<'_> = Names::default();
    let mut extended: Names<'_> = Names::default();
    for (i, v) in versions.iter().enumerate() {
        let Some(content) = v.schema().filter(|_| v.unchanged_since.is_none()) else {
            continue;
        };
        let content = &content.content;
        match reach.get(i) {
            Some(Some(Some(reached))) => {
                for &name in reached {
                    if let Some((k, m)) = content.messages.get_key_value(name)
                        && own_message(content, m)
                    {
                        types.insert(k);
                    }
                    if let Some((k, e)) = content.enums.get_key_value(name)
                        && own_enum(content, e)
                    {
                        types.insert(k);
                    }
                    if let Some((k, _)) = content.extensions.get_key_value(name)
                        && has_own(content, k)
                    {
                        extended.insert(k);
                    }
                }
            }
            _ => {
                let names = own_messages(content)
                    .map(|m| m.full_name.as_str())
                    .chain(own_enums(content).map(|e| e.full_name.as_str()));
                types.extend(names.filter(|n| in_scope(i, n)));
                extended.extend(
                    content
                        .extensions
                        .keys()
                        .map(String::as_str)
                        .filter(|x| in_scope(i, x) && has_own(content, x)),
                );
            }
        }
    }
    let mut types: Vec<&str> = types.into_iter().collect();
    let mut extended: Vec<&str> = extended.into_iter().collect();
    types.sort_unstable();
    extended.sort_unstable();
    // Hashed by name when a whole schema is followed; with a root, a few names are asked.
    let index = Index::new(versions, scope.root().is_none());
    let found: Vec<Vec<Placed<'_>>> = types
        .par_iter()
        .map(|&name| type_story(versions, &index, name, &in_scope))
        .chain(
            extended
                .par_iter()
                .map(|&name| extension_story(versions, &index, name, &in_scope)),
        )
        .collect();
    placed.extend(found.into_iter().flatten());
    // Stable: the hazards of one step keep their order.
    placed.sort_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
    placed.into_iter().map(|(_, _, _, h)| h).collect()
}

/// The content of version `v` when it is new (not the same as the version before); the
/// version before's when it is the same, flagged.
fn content_of(v: &Loaded) -> Option<(&Content, bool)> {
    let schema = v.schema()?;
    Some((&schema.content, v.unchanged_since.is_some()))
}

/// Walks the history for one container: each version whose content is new goes to
/// `new(i, content, container, placed)`; a run of unchanged versions is marked seen again
/// where `holds` its content (asked once per run: nothing else can show there).
fn walk<'a>(
    versions: &'a [Loaded],
    index: &Index<'a>,
    holds: impl Fn(&Look<'_, 'a>) -> bool,
    mut new: impl FnMut(usize, &Look<'_, 'a>, &mut Container<'a>, &mut Vec<Placed<'a>>),
) -> Vec<Placed<'a>> {
    let mut c = Container::default();
    let mut placed = Vec::new();
    let mut held: Option<bool> = None;
    for (i, v) in versions.iter().enumerate() {
        let Some((content, unchanged)) = content_of(v) else {
            held = None;
            continue;
        };
        let look = index.look(i, content);
        if unchanged {
            if *held.get_or_insert_with(|| holds(&look)) {
                c.seen_again(i);
            }
            continue;
        }
        held = None;
        new(i, &look, &mut c, &mut placed);
    }
    placed
}

/// The story of the message or enum `name` across the history.
fn type_story<'a>(
    versions: &'a [Loaded],
    index: &Index<'a>,
    name: &'a str,
    in_scope: &(dyn Fn(usize, &str) -> bool + Sync),
) -> Vec<Placed<'a>> {
    let holds =
        |look: &Look<'_, 'a>| look.message(name).is_some() || look.enumeration(name).is_some();
    walk(versions, index, holds, |i, look, c, placed| {
        if !in_scope(i, name) {
            return;
        }
        let mut out = Vec::new();
        if let Some((m, true)) = look.message(name) {
            if c.last_message == Some(m) {
                c.seen_again(i);
            } else {
                c.last_message = Some(m);
                message(c, m, i, versions, &mut out);
            }
            placed.extend(out.drain(..).map(|h| (i, Phase::Message, name, h)));
        }
        if let Some((e, true)) = look.enumeration(name) {
            if c.last_enum == Some(e) {
                c.seen_again(i);
            } else {
                c.last_enum = Some(e);
                enumeration(c, e, i, versions, &mut out);
            }
            placed.extend(out.drain(..).map(|h| (i, Phase::Enum, name, h)));
        }
    })
}

/// The story of the extensions of message `extendee` across the history.
fn extension_story<'a>(
    versions: &'a [Loaded],
    index: &Index<'a>,
    extendee: &'a str,
    in_scope: &(dyn Fn(usize, &str) -> bool + Sync),
) -> Vec<Placed<'a>> {
    let holds = |look: &Look<'_, 'a>| look.extensions(extendee).is_some();
    walk(versions, index, holds, |i, look, c, placed| {
        let mut out = Vec::new();
        let found = look.extensions(extendee);
        // The extensions of each message, own or not (custom options extend
        // descriptor.proto's messages): their numbers can be reused too.
        if let Some((exts, true)) = found
            && in_scope(i, extendee)
        {
            if c.last_extensions == Some(exts) {
                c.seen_again(i);
            } else {
                c.last_extensions = Some(exts);
                extensions(c, extendee, exts, i, versions, &mut out);
            }
            placed.extend(out.drain(..).map(|h| (i, Phase::Extensions, extendee, h)));
        }
        // A message still there whose extensions are all gone.
        if look.message(extendee).is_some()
            && found.is_none()
            && c.last_extensions.as_ref().is_some_and(|x| !x.is_empty())
        {
            c.last_extensions = Some(&NO_EXTENSIONS);
            extensions(c, extendee, &NO_EXTENSIONS, i, versions, &mut out);
            placed.extend(
                out.drain(..)
                    .map(|h| (i, Phase::ExtensionsGone, extendee, h)),
            );
        }
    })
}
