import Foundation

/// Reads a response body: its length up front, then whole or in chunks, so a large response file is
/// never held in memory whole.
///
/// Response files were resolved (links followed, inside the bundle) and checked to be regular files
/// when the bundle was loaded; they are checked again here, because a file can be replaced while the
/// app runs, and opening a named pipe or a device would block the loading thread for good.
package struct ResponseBodyReader {
    package let body: ResponseBody
    package let length: Int
    /// Why the body cannot be sent (a response file that went missing or is no regular file any more).
    package let problem: (any Error)?

    package init(_ body: ResponseBody) {
        self.body = body
        switch body {
        case .empty: length = 0; problem = nil
        case .inline(let data), .json(let data): length = data.count; problem = nil
        case .file(let url):
            do {
                length = try Self.regularFileSize(url)
                problem = nil
            } catch {
                length = 0
                problem = error
            }
        }
    }

    /// Files up to this size are read rather than mapped: a map and unmap per answer costs more than
    /// the copy (and, in the local server, contends for the address space's lock across event loops).
    static let mapThreshold = 64 << 10

    /// The whole body, memory-mapped for a file (over ``mapThreshold``) rather than copied into memory.
    package func whole() throws -> Data {
        switch body {
        case .empty: return Data()
        case .inline(let data), .json(let data): return data
        case .file(let url):
            _ = try Self.regularFileSize(url)
            return try Data(contentsOf: url, options: length > Self.mapThreshold ? .alwaysMapped : [])
        }
    }

    /// The size of a regular file; anything else (a pipe, a device, a folder, a missing file) throws.
    /// One `stat`, following links: this runs on every request for a file body.
    static func regularFileSize(_ url: URL) throws -> Int {
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "\(url.path) does not exist or cannot be read"])
        }
        guard (info.st_mode & mode_t(S_IFMT)) == mode_t(S_IFREG) else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "\(url.path) is not a regular file (a pipe, device or folder would block or fail)"])
        }
        return Int(info.st_size)
    }
}

/// Hands out a body a chunk at a time, for deliveries spread over steps (streaming, throttling).
package final class ChunkSource: @unchecked Sendable {
    // Used by one load at a time, on its context: each chunk is taken in the step that schedules the next.
    private let data: Data?
    private let handle: FileHandle?
    private var offset = 0

    package init(_ body: ResponseBody, rendered: Data?) throws {
        switch (rendered, body) {
        case (let rendered?, _): data = rendered; handle = nil
        case (nil, .inline(let d)), (nil, .json(let d)): data = d; handle = nil
        case (nil, .empty): data = Data(); handle = nil
        case (nil, .file(let url)):
            _ = try ResponseBodyReader.regularFileSize(url)
            data = nil
            handle = try FileHandle(forReadingFrom: url)
        }
    }

    deinit { try? handle?.close() }

    /// The next chunk of at most `size` bytes, or `nil` at the end.
    package func next(_ size: Int) throws -> Data? {
        if let handle {
            let chunk = try autoreleasepool { try handle.read(upToCount: size) } ?? Data()
            return chunk.isEmpty ? nil : chunk
        }
        guard let data, offset < data.count else { return nil }
        let end = min(offset + size, data.count)
        defer { offset = end }
        return data.subdata(in: offset..<end)
    }
}

#if !canImport(ObjectiveC)
/// Linux has no autorelease pools; the call just runs the body.
@inline(__always)
func autoreleasepool<R>(invoking body: () throws -> R) rethrows -> R { try body() }
#endif
