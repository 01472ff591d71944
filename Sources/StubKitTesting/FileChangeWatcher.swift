import Foundation
import StubKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Calls a handler each time a file is written to, truncated, or replaced by a new file of the same
/// name, woken by the kernel rather than by a timer.
///
/// The watch follows the name, not the first file: an app (or a test) that deletes the file and
/// creates it again, or renames a new one into place, is seen, and the new file is watched from then
/// on. After every event the name is looked up again (``followName(watchedFileGone:)``); when it names
/// another file (device and inode) than the one watched, or the watched file was deleted or moved (a
/// new file may reuse its inode number), the file under the name is watched instead. This logic is the
/// same on every platform; only the kernel's watch differs (``SystemWatch``):
/// - Apple platforms: two dispatch file-system sources (kqueue `EVFILT_VNODE`), one on the file (write,
///   extend, delete, rename), replaced when the name points at another file, and one on its folder
///   (write: an entry was added or removed).
/// - Linux: one inotify descriptor read by a dispatch read source (epoll), watching the file
///   (`IN_MODIFY`, which truncation raises too, `IN_DELETE_SELF`, `IN_MOVE_SELF`) and its folder
///   (`IN_CREATE`, `IN_MOVED_TO` of that name).
/// Events may be coalesced, so the handler reads whatever is new rather than counting events.
final class FileChangeWatcher: @unchecked Sendable {
    private let path: String
    private let onChange: @Sendable () -> Void
    /// The kernel watch (set once in init), the file it watches, and whether the watch is over:
    /// behind one lock, since events arrive on the caller's queue and `cancel` from anywhere.
    private struct State {
        var system: SystemWatch?
        var watched: FileIdentity?
        var cancelled = false
    }

    private let state = Locked(State())

    /// Starts watching the file at `path`, which must exist, and its folder.
    init(path: String, queue: DispatchQueue, onChange: @escaping @Sendable () -> Void) throws {
        self.path = path
        self.onChange = onChange
        let url = URL(fileURLWithPath: path)
        let system = try SystemWatch(folder: url.deletingLastPathComponent().path, fileName: url.lastPathComponent, queue: queue) { [weak self] in
            self?.handleEvent(watchedFileGone: $0)
        }
        state.withLock { $0.system = system }
        guard followName() else {
            let error = Self.error("cannot watch \(path)")
            cancel()
            throw error
        }
    }

    /// An event on the file or its folder: follow the name, then tell the caller.
    private func handleEvent(watchedFileGone: Bool) {
        followName(watchedFileGone: watchedFileGone)
        onChange()
    }

    /// Watches the file `path` names now, unless it is the file already watched (or none is there:
    /// the folder's event for the new one comes later). `false` when the file could not be watched.
    @discardableResult
    private func followName(watchedFileGone: Bool = false) -> Bool {
        state.withLock { state in
            guard !state.cancelled, let system = state.system else { return true }
            if watchedFileGone { state.watched = nil }
            guard let current = Self.identity(atPath: path) else { return state.watched != nil }
            guard current != state.watched else { return true }
            guard let opened = system.watchFile(at: path) else { return false }
            state.watched = opened
            return true
        }
    }

    func cancel() {
        state.withLock { state in
            state.cancelled = true
            state.system?.cancel()
        }
    }

    deinit {
        cancel()
    }

    fileprivate static func error(_ what: String) -> NSError {
        let code = errno
        return NSError(domain: NSPOSIXErrorDomain, code: Int(code), userInfo: [NSLocalizedDescriptionKey: "\(what): \(String(cString: strerror(code)))"])
    }
}

extension FileChangeWatcher {
    /// Which file a name or a descriptor points at.
    struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64

        init(_ info: stat) {
            // dev_t is a signed Int32 on Darwin: a conversion that checks would trap on a negative one.
            device = UInt64(truncatingIfNeeded: info.st_dev)
            inode = UInt64(truncatingIfNeeded: info.st_ino)
        }
    }

    static func identity(atPath path: String) -> FileIdentity? {
        var info = stat()
        return stat(path, &info) == 0 ? FileIdentity(info) : nil
    }

    static func identity(of descriptor: Int32) -> FileIdentity? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? FileIdentity(info) : nil
    }

    /// Which file an open descriptor reads (device and inode) and its size: a reader that finds
    /// another file, or a shorter one, under the same name knows it was replaced or truncated.
    struct FileState: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: UInt64
    }

    static func state(of descriptor: Int32) -> FileState? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        let identity = FileIdentity(info)
        return FileState(device: identity.device, inode: identity.inode, size: UInt64(truncatingIfNeeded: info.st_size))
    }
}

extension FileChangeWatcher {
    /// The kernel's side of the watch: a folder watch made at once, and a file watch that
    /// ``watchFile(at:)`` puts on whatever file the name points at. Called under the watcher's lock.
    fileprivate final class SystemWatch {
        #if canImport(Darwin)
        private let queue: DispatchQueue
        private let onEvent: @Sendable (_ watchedFileGone: Bool) -> Void
        private let folderSource: any DispatchSourceFileSystemObject
        private var fileSource: (any DispatchSourceFileSystemObject)?

        init(folder: String, fileName: String, queue: DispatchQueue, onEvent: @escaping @Sendable (_ watchedFileGone: Bool) -> Void) throws {
            self.queue = queue
            self.onEvent = onEvent
            let descriptor = open(folder, O_EVTONLY)
            guard descriptor >= 0 else { throw FileChangeWatcher.error("cannot watch \(folder)") }
            folderSource = DispatchSource.makeFileSystemObjectSource(fileDescriptor: descriptor, eventMask: [.write], queue: queue)
            folderSource.setCancelHandler { close(descriptor) }
            folderSource.setEventHandler { onEvent(false) }
            // Resumed at once: libdispatch traps when a source that was never resumed is released.
            folderSource.resume()
        }

        func watchFile(at path: String) -> FileIdentity? {
            let descriptor = open(path, O_EVTONLY)
            guard descriptor >= 0 else { return nil }
            guard let identity = FileChangeWatcher.identity(of: descriptor) else { close(descriptor); return nil }
            fileSource?.cancel()
            let source = DispatchSource.makeFileSystemObjectSource(fileDescriptor: descriptor, eventMask: [.write, .extend, .delete, .rename], queue: queue)
            source.setEventHandler { [weak source] in
                onEvent(source.map { !$0.data.isDisjoint(with: [.delete, .rename]) } ?? false)
            }
            source.setCancelHandler { close(descriptor) }
            fileSource = source
            source.resume()
            return identity
        }

        func cancel() {
            folderSource.cancel()
            fileSource?.cancel()
            fileSource = nil
        }
        #elseif canImport(Glibc)
        private let descriptor: Int32
        private let source: any DispatchSourceRead
        private var fileWatch: Int32?
        private static let fileMask = UInt32(IN_MODIFY | IN_DELETE_SELF | IN_MOVE_SELF)

        init(folder: String, fileName: String, queue: DispatchQueue, onEvent: @escaping @Sendable (_ watchedFileGone: Bool) -> Void) throws {
            let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard descriptor >= 0 else { throw FileChangeWatcher.error("inotify_init1") }
            let folderWatch = inotify_add_watch(descriptor, folder, UInt32(IN_CREATE | IN_MOVED_TO))
            guard folderWatch >= 0 else {
                let error = FileChangeWatcher.error("cannot watch \(folder)")
                close(descriptor)
                throw error
            }
            self.descriptor = descriptor
            source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
            source.setEventHandler {
                // Drain the events, then act once if one concerns the file (the folder's other entries do not).
                var buffer = [UInt8](repeating: 0, count: 4096)
                var relevant = false, gone = false
                while true {
                    let count = read(descriptor, &buffer, buffer.count)
                    guard count > 0 else { break }
                    let batch = Self.concernsFile(buffer[..<count], named: fileName, folderWatch: folderWatch)
                    relevant = relevant || batch.relevant
                    gone = gone || batch.gone
                }
                if relevant { onEvent(gone) }
            }
            source.setCancelHandler { close(descriptor) }
            source.resume()
        }

        func watchFile(at path: String) -> FileIdentity? {
            let watch = inotify_add_watch(descriptor, path, Self.fileMask)
            guard watch >= 0, let identity = FileChangeWatcher.identity(atPath: path) else { return nil }
            // A file renamed away keeps its watch: stop hearing about it.
            if let old = fileWatch, old != watch { _ = inotify_rm_watch(descriptor, old) }
            fileWatch = watch
            return identity
        }

        func cancel() {
            source.cancel()
        }

        /// Whether a batch of `inotify_event`s names the file (any event of a file watch, or a folder
        /// event for the file's name), and whether a watched file was deleted or moved away.
        private static func concernsFile(_ events: ArraySlice<UInt8>, named name: String, folderWatch: Int32) -> (relevant: Bool, gone: Bool) {
            let bytes = Array(events)
            var offset = 0
            var relevant = false, gone = false
            let header = MemoryLayout<inotify_event>.size
            let goneMask = UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)
            while offset + header <= bytes.count {
                let (watch, mask, length) = bytes.withUnsafeBytes { raw in
                    (raw.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                     raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                     Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                if watch != folderWatch {
                    relevant = true
                    gone = gone || mask & goneMask != 0
                } else {
                    let nameBytes = bytes[(offset + header)..<min(bytes.count, offset + header + length)].prefix { $0 != 0 }
                    relevant = relevant || String(decoding: nameBytes, as: UTF8.self) == name
                }
                offset += header + length
            }
            return (relevant, gone)
        }
        #else
        init(folder: String, fileName: String, queue: DispatchQueue, onEvent: @escaping @Sendable (_ watchedFileGone: Bool) -> Void) throws {
            throw FileChangeWatcher.error("watching files is not supported on this platform")
        }
        func watchFile(at path: String) -> FileIdentity? { nil }
        func cancel() {}
        #endif
    }
}
