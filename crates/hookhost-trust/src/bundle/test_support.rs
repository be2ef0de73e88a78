//! What the signature tests of `bundle` share: ECDSA signatures made once with openssl 3.0
//! (`openssl dgst -sha256|-sha384 -sign`), one for each way a valid signature's DER can look,
//! for the tests of every path that verifies ECDSA (`keyless::tests_encodings`,
//! `cosign::tests_encodings`); and [`Tool`] (openssl, minisign) and [`soak_count`] for the soak
//! tests (`--ignored`) that sign and verify thousands of messages both ways.
//!
//! openssl signs with a random nonce, so one message signed some thousand times gave every
//! shape below (r or s with a leading 0x00, a byte short, high or low S); each was checked
//! with `openssl dgst -verify` when it was made. The message is a cosign simple-signing
//! payload, so the cosign path can verify the same bytes. A signature's hex is split as it is
//! encoded: the SEQUENCE's header, r's INTEGER, s's INTEGER.

/// What every vector signs: cosign's payload for `registry.example/platform/guard` at
/// `sha256("guard")`.
pub(crate) const MESSAGE: &str = concat!(
    r#"{"critical":{"identity":{"docker-reference":"registry.example/platform/guard"},"#,
    r#""image":{"docker-manifest-digest":"#,
    r#""sha256:a9d4034da07d8ef31db1cd4119b6a4552fdfbd19787e2848e71c8ee3b47703a7"},"#,
    r#""type":"cosign container image signature"},"optional":null}"#
);

/// One key and its signatures of [`MESSAGE`], named by their shape.
pub(crate) struct Vectors {
    /// The public key, SubjectPublicKeyInfo DER (hex).
    pub(crate) spki: &'static str,
    /// (shape, DER hex), made with the key's curve's own hash (SHA-256 for P-256, SHA-384 for
    /// P-384), as Sigstore pairs them.
    pub(crate) signatures: [(&'static str, &'static str); 6],
}

/// A P-256 key (Rekor's, the CT logs', cosign's and most signers' curve).
#[rustfmt::skip]
pub(crate) const P256: Vectors = Vectors {
    spki: concat!(
        "3059301306072a8648ce3d020106082a8648ce3d03010703420004d34efaaaa03e8a36fce9757991",
        "16ddabe49852d5a6fabedc20df5f64ade46b85891045a5e307488eade36f2b4a6d7ee7dee63bfa40",
        "0cc52fd1b48c062eac0e42",
    ),
    signatures: [
        ("low_s", concat!("3044", "02207cb950357b9947aa495f55210a964f8abefe947a9cb0639e9fb713062ea0d4ae", "022044f773f2b6bb5248a54f5095e529550cc82ad816f10353863cc21827bc3aa4c4")),
        ("high_s", concat!("3045", "02202c9665b76c84ec61975ad1a934970970760082320cdb20be5160befaba15926d", "022100b08e8907c2d443c1272be5aaf72c135b80ff34bd6d3480ec56a42b70475d838f")),
        ("r_leading_zero", concat!("3045", "022100c8063e30f1a1c016b0dc1fb82edc4ff96146a8d4749e43a4047420b4a814bb5b", "02205846c754f8ae8714dd6dec21f5ce9f575c316f6411a4c6f7a3367b392fd65180")),
        ("s_leading_zero", concat!("3046", "0221009e3a57f3ef1ec58d196e87b000b74e58facf4027b08976a736f6b239ccc0e463", "022100aa41c60dec28d9b47657a64321daeea4d20fa0cfe3a54fc04b91042e95c8ff54")),
        ("r_short", concat!("3043", "021f03502e0e81c5cf80920306e793ac33cd56719f8e06a310ff59e86df66d7757", "02200e09b6a90e4213ab71019f7b8439370bc7eb1d477d15415080c42f4451358b53")),
        ("s_short", concat!("3043", "02204cbc1250fc7059deacb4c7bc49aa826f5bb6fabb57a782dea55b94dbef28db26", "021f73b5df05bfa2cda74bbc9fd6a41eba495baa84932b05896390ad025ce6c155")),
    ],
};

/// A P-384 key (Fulcio's CAs', some signers').
#[rustfmt::skip]
pub(crate) const P384: Vectors = Vectors {
    spki: concat!(
        "3076301006072a8648ce3d020106052b81040022036200046278bc7fa3d12f89aa117ffc5de308aa",
        "982f2d787abe314e1723ecb0c91ac3bb2c09b7328d48a15901507cb6b556f34a7264a4ae626d849b",
        "66b284e485094c6ea79fd6ea237c7a8c2cdcfad7937704c903d0ea594326e2a37a3e8cc6dc4f6b6b",
    ),
    signatures: [
        ("low_s", concat!("3064", "02300bf20195fc0ef00ca93d5d037561030160d4d00f200aaf3e90fe56c52488554b9a8d79fbd8e4d3557f9034540cbcd2b0", "0230425c754e6cf1c2f30a180dc91db8eb3d3a31839781f8ca8ef68f5b17e9b06bdf12470c0905d48098510717c428878fad")),
        ("high_s", concat!("3065", "023076d0d243878157f5f6e5bffbd145d56d2809335d49f5def20ae547e965387e6edb059382feed58128de9cbbe322e7736", "0231009fe8319a8c1d4036536628c2f41f748fad4fdd87f08066bbd5d7893186472584c4389dd47e47185c511f234943850aac")),
        ("r_leading_zero", concat!("3065", "023100cb21ae2275321980ebcae67c70133d0bcae62daa8e52e2729e171d1e50e4417682d6f624230862729c253e1240dfc8d4", "02307a9c6cda6845f2d71f165c117ec8eebff80f474459ee8f686d0f334ef8f0fbf61c2e763c96b7fc7074579109795f2230")),
        ("s_leading_zero", concat!("3066", "023100efd8b0705775deda13cc5a2d982779fd679764b1e0c7d7f902aa069e44f93ef5a9c7177029dd1b689b484a340575872e", "023100dd87425039123512a005b718048306d830511f711cbff10b730959333d98b292d7b7bf29874726f6b9c407e799bd12a9")),
        ("r_short", concat!("3063", "022f16029526a2f881e14464adcb4c64e561f76cd72038950f2ff51f7909663c4b07c8f1de36036178d2d84facf932452d", "02306d4fdfd5cf0e1e76f3c4387e62a67ab49beb29cc6553f58ce5a7d5b5389aa81f8ea79cd583717c86fb1435bcf04ec875")),
        ("s_short", concat!("3063", "02303967c9115c2cd61d307cafa2fce998f594571de0ee29da109df461a390ed3f23859ae66911759736dd773f3f9d551873", "022f49dc78e6a3a22f19f892e289e9c179aeaaa2b70e1bc1fd465f9b35065429e8448b1d94896eb763e4c8e8db5d91c507")),
    ],
};

/// The bytes of `hex`.
pub(crate) fn bytes(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("the vectors are hex"))
        .collect()
}

/// The lengths of r's and s's INTEGER contents in a DER signature (a leading 0x00 counted).
pub(crate) fn integer_lengths(der: &[u8]) -> (usize, usize) {
    let header = if der[1] & 0x80 == 0 { 2 } else { 3 };
    let r = usize::from(der[header + 1]);
    let s = usize::from(der[header + 2 + r + 1]);
    (r, s)
}

/// How many messages a soak test signs each way: `HOOKHOST_SOAK`, 2000 by default.
pub(crate) fn soak_count() -> usize {
    std::env::var("HOOKHOST_SOAK")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000)
}

/// A tool the soak tests run, in a temporary directory of its own.
pub(crate) struct Tool {
    program: &'static str,
    /// Where its input and output files are.
    dir: tempfile::TempDir,
}

impl Tool {
    /// The tool, or a panic naming the command that installs it.
    pub(crate) fn new(program: &'static str) -> Tool {
        let found = std::process::Command::new(program)
            .arg("-h")
            .output()
            .is_ok();
        assert!(
            found,
            "{program} is not installed: apt-get install -y {program}"
        );
        Tool {
            program,
            dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    /// Runs it in its directory with the words of `line` then `more` (arguments that hold
    /// spaces); whether it succeeded, and its stdout.
    pub(crate) fn run(&self, line: &str, more: &[&str]) -> (bool, Vec<u8>) {
        let out = std::process::Command::new(self.program)
            .args(line.split_whitespace())
            .args(more)
            .current_dir(self.dir.path())
            .output()
            .expect("the tool runs");
        (out.status.success(), out.stdout)
    }

    /// [`Tool::run`], which must succeed; its stdout.
    pub(crate) fn ok(&self, line: &str, more: &[&str]) -> Vec<u8> {
        let (ok, stdout) = self.run(line, more);
        assert!(ok, "{} {line} {more:?} failed", self.program);
        stdout
    }

    /// Writes `bytes` to the file `name` of its directory.
    pub(crate) fn write(&self, name: &str, bytes: &[u8]) {
        std::fs::write(self.dir.path().join(name), bytes).expect("the file is written");
    }

    /// The file `name` of its directory.
    pub(crate) fn read(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.dir.path().join(name)).expect("the file is read")
    }
}
