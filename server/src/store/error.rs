//! [`StoreError`]: every way the store can fail, each told as a sentence an operator can act on.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::ErrorCode;

/// An error of the store. Its `Display` is a full sentence naming the file or directory concerned,
/// fit to print to an operator as it is.
///
/// The type is `Clone` (the sources are shared) because one failed group commit answers every
/// command of its batch with the same error.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// Another process holds the data directory's lock: two servers on one database would each
    /// play their own version of the same dungeons.
    #[error(
        "another Delve server is using the data directory {} (it holds the directory's lock). \
         Stop that server, or give this one another --data-dir; nothing was changed.",
        .path.display()
    )]
    InUse { path: PathBuf },

    /// The data directory could not be created, or the path is not a directory.
    #[error(
        "cannot create or use the data directory {}: {source}. Check that the path is a \
         directory (not a file) and that this user may write to it; nothing was changed.",
        .path.display()
    )]
    DataDir {
        path: PathBuf,
        #[source]
        source: Arc<io::Error>,
    },

    /// The database file could not be opened, or written, by this process.
    #[error(
        "cannot open the database {} for writing: {reason}. Check that its directory and the \
         file may be written by this user and that the disk is not full; nothing was changed.",
        .path.display()
    )]
    Unwritable { path: PathBuf, reason: String },

    /// The file exists but is not a SQLite database (or its header is destroyed).
    #[error(
        "the file {} is not a SQLite database, or its header is damaged ({reason}). It was left \
         untouched: move it away or restore it from a backup, then start again.",
        .path.display()
    )]
    NotADatabase { path: PathBuf, reason: String },

    /// The file is a SQLite database whose pages are damaged (`PRAGMA quick_check` failed).
    #[error(
        "the database {} is corrupt (quick_check says: {report}). It was left untouched: \
         restore it from a backup, or move it away to start with an empty one.",
        .path.display()
    )]
    Corrupt { path: PathBuf, report: String },

    /// The database was written by a newer server.
    #[error(
        "the database at {} has schema version {found}, newer than this server's {supported}: \
         upgrade the server. The database was left untouched.",
        .path.display()
    )]
    TooNew {
        path: PathBuf,
        found: i64,
        supported: i64,
    },

    /// The file is a SQLite database of some other program.
    #[error(
        "the database {} does not belong to Delve ({detail}). It was left untouched: choose \
         another data directory.",
        .path.display()
    )]
    Foreign { path: PathBuf, detail: String },

    /// `create_dungeon` was asked for a name that is taken (names are compared ignoring case).
    #[error(
        "a dungeon named {name:?} already exists in the database {} (names are compared \
         ignoring case).",
        .path.display()
    )]
    DungeonExists { path: PathBuf, name: String },

    /// A value given by the caller cannot be stored (e.g. a sequence number beyond `i64::MAX`).
    #[error("{what} cannot be stored in the database {}: {reason}.", .path.display())]
    Invalid {
        path: PathBuf,
        what: String,
        reason: String,
    },

    /// SQLite failed at something that should have worked (disk full, I/O error, a constraint).
    #[error("the database {} failed to {action}: {source}.", .path.display())]
    Sqlite {
        path: PathBuf,
        action: String,
        #[source]
        source: Arc<rusqlite::Error>,
    },

    /// The writer thread is gone (it can only stop when the store is dropped or it panicked).
    #[error(
        "the storage writer of the database {} has stopped, so this write was not saved; see \
         the earlier errors in the log.",
        .path.display()
    )]
    Closed { path: PathBuf },
}

impl StoreError {
    /// Wraps a SQLite error met while doing `action` (a verb phrase: "read the high scores").
    pub(crate) fn sqlite(path: &Path, action: impl Into<String>, source: rusqlite::Error) -> Self {
        StoreError::Sqlite {
            path: path.to_path_buf(),
            action: action.into(),
            source: Arc::new(source),
        }
    }

    /// Classifies an error met while opening and checking the file, before anything was written:
    /// "not a database", "corrupt" and "cannot open" get their own variants.
    pub(crate) fn at_open(path: &Path, action: &str, source: rusqlite::Error) -> Self {
        let reason = source.to_string();
        match source.sqlite_error_code() {
            Some(ErrorCode::NotADatabase) => StoreError::NotADatabase {
                path: path.to_path_buf(),
                reason,
            },
            Some(ErrorCode::DatabaseCorrupt) => StoreError::Corrupt {
                path: path.to_path_buf(),
                report: reason,
            },
            Some(
                ErrorCode::CannotOpen
                | ErrorCode::ReadOnly
                | ErrorCode::PermissionDenied
                | ErrorCode::DiskFull
                | ErrorCode::SystemIoFailure,
            ) => StoreError::Unwritable {
                path: path.to_path_buf(),
                reason: format!("{action}: {reason}"),
            },
            _ => StoreError::sqlite(path, action, source),
        }
    }
}
