import Foundation
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
/// on. On Apple platforms two dispatch file-system sources (kqueue `EVFILT_VNODE`): one on the file
/// (write, extend, delete, rename), re-opened when the name points at another file, and one on its
/// folder (write: an entry was added or removed). On Linux one inotify descriptor read by a dispatch
/// read source (epoll), watching the file (`IN_MODIFY`, which truncation raises too, `IN_DELETE_SELF`,
/// `IN_MOVE_SELF`) and its folder (`IN_CREATE`, `IN_MOVED_TO` of that name); after each batch the
/// name is watched again, which adds the new file's watch after a replacement. Events may be
/// coalesced, so the handler reads whatever is new rather than counting events.
final class FileChangeWatcher: @unchecked Sendable {
    // Set once in init; dispatch sources are thread-safe. On Apple platforms the file's source is
    // replaced on `queue` and read by `cancel`, so it sits behind `lock`.
    private let source: any DispatchSourceProtocol
    #if canImport(Darwin)
    private let lock = NSLock()
    private var fileSource: (any DispatchSourceFileSystemObject)?
    private var fileIdentity: (device: dev_t, inode: ino_t)?
    private var cancelled = false
    #endif

    /// Starts watching the file at `path`, which must exist, and its folder.
    init(path: String, queue: DispatchQueue, onChange: @escaping @Sendable () -> Void) throws {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        #if canImport(Darwin)
        let descriptor = open(folder, O_EVTONLY)
        guard descriptor >= 0 else { throw Self.error("cannot watch \(folder)") }
        let source = DispatchSource.makeFileSystemObjectSource(fileDescriptor: descriptor, eventMask: [.write], queue: queue)
        self.source = source
        source.setCancelHandler { close(descriptor) }
        guard watchFile(at: path, queue: queue, onChange: onChange) else {
            let error = Self.error("cannot watch \(path)")
            // libdispatch traps when a source that was never resumed is released: resume it (it has
            // no event handler yet) and cancel it, which closes the folder's descriptor.
            source.resume()
            source.cancel()
            throw error
        }
        source.setEventHandler { [weak self] in
            // An entry of the folder changed: if the name now points at another file, follow it.
            self?.watchFile(at: path, queue: queue, onChange: onChange)
            onChange()
        }
        #elseif canImport(Glibc)
        let name = url.lastPathComponent
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw Self.error("inotify_init1") }
        let fileMask = UInt32(IN_MODIFY | IN_DELETE_SELF | IN_MOVE_SELF)
        let folderWatch = inotify_add_watch(descriptor, folder, UInt32(IN_CREATE | IN_MOVED_TO))
        guard folderWatch >= 0, inotify_add_watch(descriptor, path, fileMask) >= 0 else {
            let error = Self.error("cannot watch \(path)")
            close(descriptor)
            throw error
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        self.source = source
        source.setEventHandler {
            // Drain the events, then act once if one concerns the file (the folder's other entries do not).
            var buffer = [UInt8](repeating: 0, count: 4096)
            var relevant = false
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                guard count > 0 else { break }
                relevant = relevant || Self.concernsFile(buffer[..<count], named: name, folderWatch: folderWatch)
            }
            guard relevant else { return }
            // After a replacement the name is another file: watch it (for the same file, a no-op).
            _ = inotify_add_watch(descriptor, path, fileMask)
            onChange()
        }
        source.setCancelHandler { close(descriptor) }
        #else
        throw Self.error("watching files is not supported on this platform")
        #endif
        source.resume()
    }

    #if canImport(Glibc)
    /// Whether a batch of `inotify_event`s names the file: any event of a file watch, or a folder
    /// event for the file's name.
    private static func concernsFile(_ events: ArraySlice<UInt8>, named name: String, folderWatch: Int32) -> Bool {
        let bytes = Array(events)
        var offset = 0
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= bytes.count {
            let (watch, length) = bytes.withUnsafeBytes { raw in
                (raw.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                 Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
            }
            if watch != folderWatch { return true }
            let nameBytes = bytes[(offset + header)..<min(bytes.count, offset + header + length)].prefix { $0 != 0 }
            if String(decoding: nameBytes, as: UTF8.self) == name { return true }
            offset += header + length
        }
        return false
    }
    #endif

    #if canImport(Darwin)
    /// Watches the file `path` names now, unless already watching that file; `false` when it cannot be opened.
    @discardableResult
    private func watchFile(at path: String, queue: DispatchQueue, onChange: @escaping @Sendable () -> Void) -> Bool {
        let descriptor = open(path, O_EVTONLY)
        guard descriptor >= 0 else { return false }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { close(descriptor); return false }
        lock.lock()
        defer { lock.unlock() }
        if cancelled || (fileIdentity?.device == info.st_dev && fileIdentity?.inode == info.st_ino) {
            close(descriptor)
            return true
        }
        fileSource?.cancel()
        let source = DispatchSource.makeFileSystemObjectSource(fileDescriptor: descriptor, eventMask: [.write, .extend, .delete, .rename], queue: queue)
        source.setEventHandler { [weak self, weak source] in
            if let events = source?.data, !events.isDisjoint(with: [.delete, .rename]) {
                self?.watchFile(at: path, queue: queue, onChange: onChange)
            }
            onChange()
        }
        source.setCancelHandler { close(descriptor) }
        fileSource = source
        fileIdentity = (info.st_dev, info.st_ino)
        source.resume()
        return true
    }
    #endif

    func cancel() {
        source.cancel()
        #if canImport(Darwin)
        lock.lock()
        cancelled = true
        fileSource?.cancel()
        fileSource = nil
        lock.unlock()
        #endif
    }

    deinit {
        cancel()
    }

    private static func error(_ what: String) -> NSError {
        let code = errno
        return NSError(domain: NSPOSIXErrorDomain, code: Int(code), userInfo: [NSLocalizedDescriptionKey: "\(what): \(String(cString: strerror(code)))"])
    }
}

extension FileChangeWatcher {
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
        return FileState(device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(truncatingIfNeeded: info.st_ino),
                         size: UInt64(truncatingIfNeeded: info.st_size))
    }
}
