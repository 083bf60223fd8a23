//! Bounded random-input runs of the engine's shared fuzz targets (the same
//! functions the coverage-guided `fuzz/` crate drives): opening a data
//! directory with one file damaged at a random point, restoring a damaged
//! snapshot, and the raw decoders fed pieces of real files.
//! `CAIRN_FUZZ_ROUNDS` and `CAIRN_FUZZ_SEED` set the length and stream.

use cairn_engine::fuzz_targets::{Recovery, decoders};

/// SplitMix64, reproducible on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next().to_le_bytes()[0]).collect()
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name} must be a number"))
        })
        .unwrap_or(default)
}

fn report<'a>(target: &'a str, input: &'a [u8]) -> impl Drop + 'a {
    struct OnPanic<'a>(&'a str, &'a [u8]);
    impl Drop for OnPanic<'_> {
        fn drop(&mut self) {
            if std::thread::panicking() {
                eprintln!("fuzz target {} failed on input bytes {:?}", self.0, self.1);
            }
        }
    }
    OnPanic(target, input)
}

#[test]
fn damaged_data_directories_open_whole_or_fail_cleanly() {
    let recovery = Recovery::new().expect("template");
    // Each round copies the template and opens it: a few milliseconds.
    let rounds = env_u64("CAIRN_FUZZ_ROUNDS", 2_000).div_ceil(5);
    let mut rng = Rng(env_u64("CAIRN_FUZZ_SEED", 0x00CA_1A2F) ^ 0x5EC0);
    for _ in 0..rounds {
        let len = 7 + (rng.next() % 24) as usize;
        let input = rng.bytes(len);
        let _guard = report("recovery", &input);
        recovery.check(&input);
    }
    // Every cut of every file, at a stride, so each file's structure is met.
    for pick in 0..recovery.files().len() {
        let len = std::fs::metadata(&recovery.files()[pick])
            .expect("stat")
            .len();
        for cut in (0..=len).step_by(37) {
            let mut input = vec![u8::try_from(pick).expect("few files"), 0];
            input.extend(u32::try_from(cut).expect("small").to_le_bytes());
            let _guard = report("recovery", &input);
            recovery.check(&input);
        }
    }
}

#[test]
fn raw_decoders_read_pieces_of_real_files_or_fail_cleanly() {
    let recovery = Recovery::new().expect("template");
    let files: Vec<Vec<u8>> = recovery
        .files()
        .iter()
        .map(|p| std::fs::read(p).expect("read"))
        .collect();
    let mut rng = Rng(env_u64("CAIRN_FUZZ_SEED", 0x00CA_1A2F) ^ 0xDEC0);
    for _ in 0..env_u64("CAIRN_FUZZ_ROUNDS", 2_000) {
        let file = &files[(rng.next() % files.len() as u64) as usize];
        let start = (rng.next() % (file.len() as u64 + 1)) as usize;
        let end = start + (rng.next() % (file.len() - start + 1) as u64) as usize;
        let mut input = vec![rng.next().to_le_bytes()[0]];
        input.extend(&file[start..end]);
        for _ in 0..rng.next() % 4 {
            if input.len() > 1 {
                let i = 1 + (rng.next() % (input.len() as u64 - 1)) as usize;
                input[i] = rng.next().to_le_bytes()[0];
            }
        }
        let _guard = report("decoders", &input);
        decoders(&input);
    }
}
