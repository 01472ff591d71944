import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock on a folder, shared by every process that takes it: the app's recorder clearing a
/// bundle and test runners (several simulators, parallel clones) saving values into it take turns.
///
/// `flock(2)` on the folder itself, so no lock file is left in the bundle. Advisory only: it orders
/// the writers that take it, not an editor or `rm`. Both Linux and Apple platforms lock a directory
/// this way; a network file system may not honour it.
package enum FolderLock {
    /// Why the lock could not be taken.
    package struct Failure: Error, CustomStringConvertible, LocalizedError {
        package var description: String
        package var errorDescription: String? { description }
    }

    /// Runs `body` while holding the lock on `folder`, which must exist.
    ///
    /// Waits at most `limit` seconds for another holder (a holder keeps it for one small write), then
    /// throws rather than hanging a test run behind a process stopped in a debugger.
    package static func withExclusiveLock<R>(on folder: URL, limit: TimeInterval = 10, _ body: () throws -> R) throws -> R {
        let descriptor = open(folder.path, O_RDONLY)
        guard descriptor >= 0 else {
            throw Failure(description: "cannot open the folder to lock it: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let deadline = Date().addingTimeInterval(limit)
        var pause: useconds_t = 1_000
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            guard code == EWOULDBLOCK else {
                throw Failure(description: "cannot lock the folder: \(String(cString: strerror(code)))")
            }
            // flock has no wait with a time limit; back off briefly, since holders keep it for one write.
            guard Date() < deadline else {
                throw Failure(description: "another process has held the lock on the folder for over \(Int(limit)) s (a recorder or a test runner stopped while writing?)")
            }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
