//! Reserved numbers and names of one declaration, indexed once and then looked up per member:
//! the ranges sorted and merged for a binary search, the names in a set. A scan of the
//! reservations per member made a message with 100,000 removed-and-reserved fields quadratic.

use std::collections::HashSet;

/// The reservations of a message (`u32`) or an enum (`i32`).
pub(crate) struct Reserved<'a, T> {
    /// Inclusive, sorted by start, not overlapping.
    ranges: Vec<(T, T)>,
    names: HashSet<&'a str>,
}

impl<'a, T: Ord + Copy> Reserved<'a, T> {
    pub(crate) fn new(ranges: &[(T, T)], names: &'a [String]) -> Self {
        let mut sorted: Vec<(T, T)> = ranges.iter().filter(|(a, b)| a <= b).copied().collect();
        sorted.sort_unstable();
        let mut merged: Vec<(T, T)> = Vec::with_capacity(sorted.len());
        for (a, b) in sorted {
            match merged.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        Reserved {
            ranges: merged,
            names: names.iter().map(String::as_str).collect(),
        }
    }

    /// Whether `x` is in a reserved range.
    pub(crate) fn number(&self, x: T) -> bool {
        let i = self.ranges.partition_point(|(a, _)| *a <= x);
        i > 0 && self.ranges[i - 1].1 >= x
    }

    /// Whether `name` is reserved.
    pub(crate) fn name(&self, name: &str) -> bool {
        self.names.contains(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_found_by_binary_search_even_when_they_overlap_or_come_unsorted() {
        let names = vec!["gone".to_string()];
        let r = Reserved::new(&[(20, 30), (1, 1), (25, 40), (50, 50), (9, 5)], &names);
        let hits: Vec<i32> = (0..=55).filter(|x| r.number(*x)).collect();
        let want: Vec<i32> = [1].into_iter().chain(20..=40).chain([50]).collect();
        assert_eq!(hits, want);
        assert!(r.name("gone") && !r.name("kept"));
    }
}
