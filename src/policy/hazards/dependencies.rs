//! DEPENDENCY_CHANGED: a buf dependency pinned at another commit.

use super::{Hazard, HazardKind};
use crate::load::{Loaded, VersionId};

/// A dependency pinned at another commit than in the version before: its files come from
/// outside the repository (protolapse compares the types it reaches with its embedded copy,
/// the same on both sides), so its changes between the pins are not judged — never green on
/// a dependency moved under us.
pub(super) fn moved(prev: &Loaded, v: &Loaded, i: usize, out: &mut Vec<Hazard>) {
    for pin in &v.version.dependencies {
        let Some(old) = prev
            .version
            .dependencies
            .iter()
            .find(|p| p.module == pin.module)
        else {
            continue;
        };
        if old.commit == pin.commit || old.commit.is_empty() || pin.commit.is_empty() {
            continue;
        }
        let short = |c: &str| c.chars().take(12).collect::<String>();
        out.push(Hazard {
            kind: HazardKind::DependencyChanged,
            element: pin.module.clone(),
            number: None,
            versions: vec![prev.version.name.clone(), v.version.name.clone()],
            at: VersionId::at(i),
            message: format!(
                "buf.lock moves {} from {} to {}: its files are not in the repository, so \
                 what changed in it is not judged (the types it provides are compared as \
                 protolapse's embedded copy, the same on both sides)",
                pin.module,
                short(&old.commit),
                short(&pin.commit)
            ),
            ignored: None,
        });
    }
}
