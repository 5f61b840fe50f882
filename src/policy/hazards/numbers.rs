//! One container's numbers and names from one version to the next: reuses, dropped
//! reservations, reverted types.

use super::*;

#[allow(clippy::too_many_arguments)]
pub(super) fn step<'a>(
    c: &mut Container<'a>,
    container: &str,
    present: BTreeMap<i64, Decl<'a>>,
    ranges: Vec<(i64, i64)>,
    reserved_names: &'a [String],
    i: usize,
    versions: &[Loaded],
    out: &mut Vec<Hazard>,
) {
    // Fields and values are named under their container; extensions by their full name.
    let elem = |n: &str| {
        if n.contains('.') {
            n.to_string()
        } else {
            format!("{container}.{n}")
        }
    };
    // Numbers.
    for (&n, d) in &present {
        let t = c.numbers.entry(n).or_default();
        if let (Some(r), Some((last, seen))) = (t.removed_at, &t.last)
            && last != d
        {
            out.push(Hazard {
                kind: HazardKind::NumberReused,
                element: elem(d.name),
                number: Some(n),
                versions: vec![name(versions, *seen), name(versions, r), name(versions, i)],
                at: VersionId::at(i),
                ignored: None,
                message: format!(
                    "{container}: number {n} held `{}` until {}, was removed in {}, and is `{}` in {}: data written before the removal is misread",
                    describe(last),
                    name(versions, *seen),
                    name(versions, r),
                    describe(d),
                    name(versions, i)
                ),
            });
            t.types.clear();
        }
        if t.removed_at.is_some() {
            t.types.clear();
        }
        if !d.ty.is_empty() {
            match t.types.last() {
                Some((ty, _, _)) if *ty == d.ty => {}
                _ => {
                    if let Some(k) = t.types.iter().position(|(ty, _, _)| *ty == d.ty)
                        && k + 1 < t.types.len()
                    {
                        let (_, since, ref mid) = t.types[t.types.len() - 1];
                        let first = &t.types[k].2;
                        out.push(Hazard {
                            kind: HazardKind::TypeReverted,
                            element: elem(d.name),
                            number: Some(n),
                            versions: vec![
                                name(versions, t.types[k].1),
                                name(versions, since),
                                name(versions, i),
                            ],
                            at: VersionId::at(i),
                ignored: None,
                            message: format!(
                                "{container}: `{}` was {} from {}, {} from {}, and is {} again in {}: data written as {} is misread",
                                d.name,
                                first,
                                name(versions, t.types[k].1),
                                mid,
                                name(versions, since),
                                d.shown,
                                name(versions, i),
                                mid
                            ),
                        });
                    }
                    t.types.push((d.ty.clone(), i, d.shown.clone()));
                }
            }
        }
        t.last = Some((d.clone(), i));
        t.present = true;
        t.removed_at = None;
    }
    for (&n, t) in c.numbers.iter_mut() {
        if t.present && !present.contains_key(&n) {
            t.present = false;
            t.removed_at = Some(i);
        }
    }
    // Names.
    for (&n, d) in &present {
        let t = c.names.entry(d.name).or_default();
        if let (Some(r), Some((last, seen))) = (t.removed_at, t.last)
            && last != n
        {
            out.push(Hazard {
                kind: HazardKind::NameReused,
                element: elem(d.name),
                number: Some(n),
                versions: vec![name(versions, seen), name(versions, r), name(versions, i)],
                at: VersionId::at(i),
                ignored: None,
                message: format!(
                    "{container}: name `{}` was number {last} until {}, was removed in {}, and is number {n} in {}: JSON and text data with the name are misread",
                    d.name,
                    name(versions, seen),
                    name(versions, r),
                    name(versions, i)
                ),
            });
        }
        t.last = Some((n, i));
        t.present = true;
        t.removed_at = None;
    }
    let names_now: std::collections::BTreeSet<&str> = present.values().map(|d| d.name).collect();
    for (nm, t) in c.names.iter_mut() {
        if t.present && !names_now.contains(*nm) {
            t.present = false;
            t.removed_at = Some(i);
        }
    }
    // Reservations.
    if let Some(Reserved {
        ranges: old_ranges,
        names: old_names,
        at: since,
    }) = &c.reserved
    {
        for &(a, b) in old_ranges {
            // The parts of the old range no longer reserved.
            let dropped = subtract((a, b), &ranges);
            if let (Some(&(first, _)), Some(&(_, last))) = (dropped.first(), dropped.last()) {
                let count: i64 = dropped.iter().map(|(x, y)| y - x + 1).sum();
                let what = if first == last {
                    format!("reserved number {first}")
                } else if dropped.len() == 1 {
                    format!("reserved numbers {first} to {last}")
                } else {
                    format!("{count} reserved numbers from {first} to {last}")
                };
                out.push(Hazard {
                    kind: HazardKind::ReservationDropped,
                    element: container.to_string(),
                    number: Some(first),
                    versions: vec![name(versions, *since), name(versions, i)],
                    at: VersionId::at(i),
                ignored: None,
                    message: format!(
                        "{container}: {what} (still reserved in {}) no longer reserved in {}: the numbers can be reused by mistake",
                        name(versions, *since),
                        name(versions, i)
                    ),
                });
            }
        }
        for n in old_names.iter() {
            if !reserved_names.contains(n) {
                out.push(Hazard {
                    kind: HazardKind::ReservationDropped,
                    element: elem(n),
                    number: None,
                    versions: vec![name(versions, *since), name(versions, i)],
                    at: VersionId::at(i),
                ignored: None,
                    message: format!(
                        "{container}: reserved name `{n}` (still reserved in {}) no longer reserved in {}: the name can be reused by mistake",
                        name(versions, *since),
                        name(versions, i)
                    ),
                });
            }
        }
    }
    c.reserved = Some(Reserved {
        ranges,
        names: reserved_names,
        at: i,
    });
}

/// The parts of the inclusive range `r` that none of `ranges` covers, in order.
fn subtract(r: (i64, i64), ranges: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let mut sorted: Vec<(i64, i64)> = ranges.to_vec();
    sorted.sort_unstable();
    let mut out = Vec::new();
    let mut start = r.0;
    for (a, b) in sorted {
        if b < start || a > r.1 {
            continue;
        }
        if a > start {
            out.push((start, a - 1));
        }
        start = start.max(b.saturating_add(1));
        if start > r.1 {
            return out;
        }
    }
    if start <= r.1 {
        out.push((start, r.1));
    }
    out
}

/// A field's type for reuse and revert checks: the type and whether it repeats, not its
/// presence (`optional`, `required`), which has hazards of its own pairwise.
pub(super) fn type_key(f: &Field) -> String {
    // string and bytes share an encoding: a field back as the other is not misread.
    let ty = match f.ty.to_string().as_str() {
        "string" => "bytes".to_string(),
        other => other.to_string(),
    };
    match &f.map {
        Some((k, v)) => format!("map<{k}, {v}>"),
        None if f.cardinality == Cardinality::Repeated => format!("repeated {ty}"),
        None => ty,
    }
}

/// A declaration as written: `string datum`, `FLIGHT_STATUS_AIRBORNE`.
fn describe(d: &Decl<'_>) -> String {
    if d.shown.is_empty() {
        d.name.to_string()
    } else {
        format!("{} {}", d.shown, d.name)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ranges_subtract() {
        use super::subtract;
        assert_eq!(subtract((5, 9), &[(7, 7)]), [(5, 6), (8, 9)]);
        assert_eq!(
            subtract((100, 536_870_911), &[(100, 200)]),
            [(201, 536_870_911)]
        );
        assert_eq!(subtract((5, 9), &[(1, 20)]), []);
        assert_eq!(subtract((5, 9), &[]), [(5, 9)]);
        assert_eq!(subtract((5, 9), &[(9, 12), (1, 5)]), [(6, 8)]);
    }
}
