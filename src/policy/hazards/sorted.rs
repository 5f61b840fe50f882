//! A map kept as one sorted vector. A container's story holds a handful of numbers and names
//! for most messages, and a B-tree spends a node of eleven slots on even one: 150,000 small
//! messages held about 300 MB of empty slots. Keys are added in one merge per version, so a
//! message with 100,000 fields costs its size, not its square.

/// Keys in ascending order, each once.
pub(super) struct Sorted<K, V>(Vec<(K, V)>);

impl<K, V> Default for Sorted<K, V> {
    fn default() -> Self {
        Sorted(Vec::new())
    }
}

impl<K: Ord + Copy, V: Default> Sorted<K, V> {
    /// Adds each of `keys` not yet held, with a default value.
    pub(super) fn ensure(&mut self, keys: impl IntoIterator<Item = K>) {
        let mut new: Vec<K> = keys
            .into_iter()
            .filter(|k| self.position(*k).is_err())
            .collect();
        if new.is_empty() {
            return;
        }
        new.sort_unstable();
        new.dedup();
        let old = std::mem::take(&mut self.0);
        let mut merged = Vec::with_capacity(old.len() + new.len());
        let mut new = new.into_iter().peekable();
        for (k, v) in old {
            while let Some(n) = new.next_if(|n| *n < k) {
                merged.push((n, V::default()));
            }
            merged.push((k, v));
        }
        merged.extend(new.map(|n| (n, V::default())));
        self.0 = merged;
    }

    /// The value of `key`, if held.
    pub(super) fn get_mut(&mut self, key: K) -> Option<&mut V> {
        let i = self.position(key).ok()?;
        self.0.get_mut(i).map(|(_, v)| v)
    }

    fn position(&self, key: K) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.cmp(&key))
    }

    /// Every key and value, keys ascending.
    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = (K, &mut V)> {
        self.0.iter_mut().map(|(k, v)| (*k, v))
    }

    /// Every value, by ascending key.
    pub(super) fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.0.iter_mut().map(|(_, v)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::Sorted;

    #[test]
    fn keys_merge_in_order_and_keep_their_values() {
        let mut m: Sorted<i64, u32> = Sorted::default();
        m.ensure([5, 1, 9, 5]);
        if let Some(v) = m.get_mut(5) {
            *v = 50;
        }
        m.ensure([7, 0, 5, 12]);
        let got: Vec<(i64, u32)> = m.iter_mut().map(|(k, v)| (k, *v)).collect();
        assert_eq!(got, [(0, 0), (1, 0), (5, 50), (7, 0), (9, 0), (12, 0)]);
        assert!(m.get_mut(8).is_none());
    }
}
