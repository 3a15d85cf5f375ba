//! Writing a file whole or not at all: the text goes to a temporary file
//! beside the target, which is renamed over it once it is complete. A run
//! that fails, or is killed, part way leaves the old file (or none), never
//! half of a new one.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A file being written; dropped before [`Pending::commit`], it removes
/// its temporary file.
pub struct Pending {
    dest: PathBuf,
    tmp: PathBuf,
    file: Option<File>,
}

impl Pending {
    /// Creates the temporary file now, so that a folder that does not
    /// exist or cannot be written is found before any long work.
    pub fn create(dest: &Path) -> Result<Pending, String> {
        // Renaming onto a folder would fail only at the end.
        if dest.is_dir() {
            return Err(format!("{}: is a folder", dest.display()));
        }
        let name = dest
            .file_name()
            .ok_or_else(|| format!("{}: not a file name", dest.display()))?;
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".{}.tmp", std::process::id()));
        let tmp = dest.with_file_name(tmp_name);
        let file = File::create(&tmp).map_err(|e| format!("{}: {e}", dest.display()))?;
        Ok(Pending {
            dest: dest.to_path_buf(),
            tmp,
            file: Some(file),
        })
    }

    /// Writes `bytes` as the whole file and puts it in place.
    pub fn commit(mut self, bytes: &[u8]) -> Result<(), String> {
        let dest = self.dest.display().to_string();
        let mut file = self
            .file
            .take()
            .ok_or_else(|| format!("{dest}: already written"))?;
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(|e| format!("{dest}: {e}"))?;
        drop(file);
        std::fs::rename(&self.tmp, &self.dest).map_err(|e| format!("{dest}: {e}"))
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        // After a commit the temporary name is gone already.
        let _ = std::fs::remove_file(&self.tmp);
    }
}

/// Writes `bytes` to `dest` whole or not at all.
pub fn write(dest: &Path, bytes: &[u8]) -> Result<(), String> {
    Pending::create(dest)?.commit(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_or_nothing() {
        let dir = std::env::temp_dir().join(format!("forsyth-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let dest = dir.join("a.txt");
        write(&dest, b"one").unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"one");
        // Dropped without a commit: the old file stays, no temporary left.
        drop(Pending::create(&dest).unwrap());
        assert_eq!(std::fs::read(&dest).unwrap(), b"one");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        assert!(write(&dir.join("no/such/folder.txt"), b"x").is_err());
        assert!(write(&dir, b"x").unwrap_err().contains("is a folder"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
