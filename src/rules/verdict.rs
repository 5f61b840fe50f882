//! Verdicts: per level and direction, how bad a change is; and the semver bump it needs.

use serde::Serialize;

/// How a reader fares with data from a writer of the other version.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Reads correctly.
    #[default]
    Safe,
    /// Safe now, but enables a later break (a number freed for reuse, an unknown value).
    Hazard,
    /// Reads, but values may change or be lost (truncation, a dropped value).
    Lossy,
    /// Fails to read, or reads garbage.
    Breaking,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Safe => "safe",
            Severity::Hazard => "hazard",
            Severity::Lossy => "lossy",
            Severity::Breaking => "breaking",
        }
    }
}

/// `backward`: the new schema reads data written with the old one. `forward`: the old
/// schema reads data written with the new one.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct Directions {
    pub backward: Severity,
    pub forward: Severity,
}

impl Directions {
    pub const SAFE: Directions = Directions {
        backward: Severity::Safe,
        forward: Severity::Safe,
    };

    /// Builds both directions from one function of (writer, reader): symmetric by
    /// construction, since swapping old and new swaps the two calls.
    pub fn of<T: ?Sized>(old: &T, new: &T, read: impl Fn(&T, &T) -> Severity) -> Directions {
        Directions {
            backward: read(old, new),
            forward: read(new, old),
        }
    }

    pub fn worst(self) -> Severity {
        self.backward.max(self.forward)
    }

    pub fn swapped(self) -> Directions {
        Directions {
            backward: self.forward,
            forward: self.backward,
        }
    }
}

/// The level a policy judges a change at: which cells of its verdict count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// The binary encoding.
    #[default]
    Wire,
    /// ProtoJSON.
    Json,
    /// Binary, ProtoJSON and generated code: a change fails when any reader of the data
    /// fails or code generated from the old schema no longer compiles against the new one
    /// (buf's FILE and PACKAGE categories).
    Source,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::Wire, Level::Json, Level::Source];

    pub fn as_str(self) -> &'static str {
        match self {
            Level::Wire => "wire",
            Level::Json => "json",
            Level::Source => "source",
        }
    }

    /// A dense index (0, 1, 2), for per-level tables.
    pub fn index(self) -> usize {
        self as usize
    }
}

impl std::str::FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Level, String> {
        Level::ALL
            .into_iter()
            .find(|l| l.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("`{s}` is not a level: use `wire`, `json` or `source`"))
    }
}

/// Generated code: does code written against the old schema still compile?
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Safe,
    Breaking,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Bump {
    None,
    Patch,
    Minor,
    Major,
}

impl Bump {
    pub fn as_str(self) -> &'static str {
        match self {
            Bump::None => "none",
            Bump::Patch => "patch",
            Bump::Minor => "minor",
            Bump::Major => "major",
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct Verdict {
    pub wire: Directions,
    pub json: Directions,
    pub source: Source,
}

impl Verdict {
    pub const SAFE: Verdict = Verdict {
        wire: Directions::SAFE,
        json: Directions::SAFE,
        source: Source::Safe,
    };

    /// No reader of the data, binary or JSON, in either direction, sees a difference.
    pub fn data_safe(&self) -> bool {
        self.wire.worst().max(self.json.worst()) == Severity::Safe
    }

    pub fn worst(&self) -> Severity {
        let s = self.wire.worst().max(self.json.worst());
        if self.source == Source::Breaking {
            s.max(Severity::Breaking)
        } else {
            s
        }
    }

    /// The cell a policy at `level` reads, backward or forward. At the source level: the
    /// worse of wire and JSON, and breaking backward when generated code breaks (code
    /// written against the old schema and built against the new one; the forward direction
    /// has no source meaning).
    pub fn at(&self, level: Level, backward: bool) -> Severity {
        let pick = |d: Directions| if backward { d.backward } else { d.forward };
        match level {
            Level::Wire => pick(self.wire),
            Level::Json => pick(self.json),
            Level::Source => {
                let data = pick(self.wire).max(pick(self.json));
                if backward && self.source == Source::Breaking {
                    Severity::Breaking
                } else {
                    data
                }
            }
        }
    }

    /// The verdict of the same change seen from new to old.
    pub fn swapped(self) -> Verdict {
        Verdict {
            wire: self.wire.swapped(),
            json: self.json.swapped(),
            source: self.source,
        }
    }

    /// Major when generated code or readers break or lose data; minor for an addition;
    /// patch otherwise. An addition that only old readers (forward) cannot handle is still a
    /// minor: semver promises that the new version reads what the old one wrote, not the
    /// reverse.
    pub fn bump(&self, additive: bool) -> Bump {
        let backward = [self.wire.backward, self.json.backward];
        let forward = [self.wire.forward, self.json.forward];
        let breaks = |cells: &[Severity]| cells.iter().any(|s| *s >= Severity::Lossy);
        if self.source == Source::Breaking || breaks(&backward) || (!additive && breaks(&forward)) {
            Bump::Major
        } else if additive {
            Bump::Minor
        } else {
            Bump::Patch
        }
    }
}
