import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Appends live journal lines to a file that a test runner in another process reads as they come.
///
/// The file is opened with `O_APPEND` and each line goes out in one `write(2)`: the kernel then puts the
/// whole line at the end of the file at once, so a reader never sees half a line followed by another
/// writer's line (two app processes may share one file), and nothing sits in a buffer when the app is
/// killed, as XCUITest kills it. Callers serialize writes (the journal's lock), so lines keep the
/// journal's order.
final class LiveJournalWriter: Sendable {
    let path: String
    private let descriptor: Int32

    /// Opens (creating when needed) the file at `path`.
    init(path: String) throws(StubKitError) {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .invalidLaunchSetting("\(StubLaunchSettings.liveJournalVariable)=\(path): cannot open it for appending: \(String(cString: strerror(errno)))")
        }
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Writes one line. A failure (disk full) is dropped: the journal in memory still has the entry,
    /// and a broken side channel must not break the app's requests.
    func append(_ line: LiveJournalLine) {
        let data = line.encoded
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                // Only a regular file that ran out of space writes less than asked for.
                offset += written
            }
        }
    }
}
