import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Calls a handler each time a file is written to, woken by the kernel rather than by a timer.
///
/// On Apple platforms a dispatch file-system source (kqueue `EVFILT_VNODE`, write and extend events);
/// on Linux an inotify descriptor (`IN_MODIFY`) read by a dispatch read source (epoll). Events may be
/// coalesced, so the handler reads whatever is new rather than counting events.
final class FileChangeWatcher: @unchecked Sendable {
    // Set once in init; the dispatch source is thread-safe.
    private let source: any DispatchSourceProtocol

    /// Starts watching the file at `path`, which must exist.
    init(path: String, queue: DispatchQueue, onChange: @escaping @Sendable () -> Void) throws {
        #if canImport(Darwin)
        let descriptor = open(path, O_EVTONLY)
        guard descriptor >= 0 else { throw Self.error("cannot watch \(path)") }
        let source = DispatchSource.makeFileSystemObjectSource(fileDescriptor: descriptor, eventMask: [.write, .extend], queue: queue)
        source.setEventHandler { onChange() }
        source.setCancelHandler { close(descriptor) }
        #elseif canImport(Glibc)
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw Self.error("inotify_init1") }
        guard inotify_add_watch(descriptor, path, UInt32(IN_MODIFY)) >= 0 else {
            let error = Self.error("cannot watch \(path)")
            close(descriptor)
            throw error
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        source.setEventHandler {
            // Drain the events (their content does not matter: the handler reads the file), then act once.
            var buffer = [UInt8](repeating: 0, count: 4096)
            while read(descriptor, &buffer, buffer.count) > 0 {}
            onChange()
        }
        source.setCancelHandler { close(descriptor) }
        #else
        throw Self.error("watching files is not supported on this platform")
        #endif
        self.source = source
        source.resume()
    }

    func cancel() {
        source.cancel()
    }

    deinit {
        source.cancel()
    }

    private static func error(_ what: String) -> NSError {
        let code = errno
        return NSError(domain: NSPOSIXErrorDomain, code: Int(code), userInfo: [NSLocalizedDescriptionKey: "\(what): \(String(cString: strerror(code)))"])
    }
}
