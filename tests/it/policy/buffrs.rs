//! buffrs packages: the manifest's proto root and the package rules (a lib with a service, a
//! package that does not match).

use super::load;
use crate::common::{Repo, proto};
use protolapse::policy::{self, Settings};

#[test]
fn buffrs_package_rules() {
    let mut r = Repo::new();
    r.write(
        "Proto.toml",
        "[package]\ntype = \"lib\"\nname = \"physics\"\nversion = \"1.0.0\"\n",
    );
    r.write(
        "proto/units.proto",
        &proto("physics.units", "message Meter {\n  double value = 1;\n}"),
    );
    r.write(
        "proto/other.proto",
        &proto(
            "chemistry",
            "message X {}\nservice S {\n  rpc Get(X) returns (X);\n}",
        ),
    );
    r.commit("v1.0.0");
    r.tag("v1.0.0");
    let p = load(&r);
    // buffrs keeps protos under proto/.
    assert_eq!(p.versions[0].version.proto_roots, ["proto"]);
    let a = policy::analyze(&p, &Settings::default()).unwrap();
    let rules: Vec<&str> = a.versions[0].package.iter().map(|v| v.rule).collect();
    assert_eq!(rules, ["BUFFRS_LIB_HAS_SERVICE", "BUFFRS_PACKAGE_MISMATCH"]);
    assert!(a.versions[0].package[1].message.contains("chemistry"));
}
