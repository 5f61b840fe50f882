//! Third-party protos embedded in the binary (assets/thirdparty: googleapis' `google/api`,
//! `google/rpc`, `google/type`, `google/longrunning`, gogoproto, protoc-gen-validate and
//! protovalidate, with their licenses): what `buf.yaml`/`buf.lock` dependencies most often
//! name. An import found neither in a version's files nor among the well-known types is
//! looked up here; such files are compiled for their importers and never judged.

mod files {
    include!(concat!(env!("OUT_DIR"), "/thirdparty_files.rs"));
}

/// The import path (as stored) and text of an embedded proto.
pub fn get(path: &str) -> Option<(&'static str, &'static str)> {
    files::THIRDPARTY_FILES
        .binary_search_by(|(p, _)| (*p).cmp(path))
        .ok()
        .and_then(|i| files::THIRDPARTY_FILES.get(i).copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_common_dependencies_are_there_and_sorted() {
        for p in [
            "google/api/annotations.proto",
            "google/api/http.proto",
            "google/rpc/status.proto",
            "google/type/date.proto",
            "gogoproto/gogo.proto",
            "validate/validate.proto",
            "buf/validate/validate.proto",
        ] {
            assert!(get(p).is_some(), "{p}");
        }
        let all: Vec<&str> = files::THIRDPARTY_FILES.iter().map(|(p, _)| *p).collect();
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        assert!(get("google/protobuf/any.proto").is_none());
    }
}
