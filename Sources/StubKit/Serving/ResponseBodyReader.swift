import Foundation

/// Reads a response body in chunks, so a large response file is never held in memory whole.
struct ResponseBodyReader {
    let body: ResponseBody
    let length: Int

    init(_ body: ResponseBody) {
        self.body = body
        switch body {
        case .empty: length = 0
        case .inline(let data), .json(let data): length = data.count
        case .file(let url):
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber
            length = size?.intValue ?? 0
        }
    }

    /// Calls `deliver` with each chunk in order; stops early when it returns false. A size of `Int.max`
    /// means one piece, memory-mapped for a file rather than copied into memory.
    func forEachChunk(size: Int, _ deliver: (Data) -> Bool) throws {
        if size == Int.max {
            let whole: Data
            switch body {
            case .empty: return
            case .inline(let data), .json(let data): whole = data
            case .file(let url): whole = try Data(contentsOf: url, options: .alwaysMapped)
            }
            if !whole.isEmpty { _ = deliver(whole) }
            return
        }
        let source = try ChunkSource(body, rendered: nil)
        while let chunk = try autoreleasepool(invoking: { try source.next(size) }) {
            guard deliver(chunk) else { return }
        }
    }
}

#if !canImport(ObjectiveC)
/// Linux has no autorelease pools; the call just runs the body.
@inline(__always)
func autoreleasepool<R>(invoking body: () throws -> R) rethrows -> R { try body() }
#endif

/// Hands out a body a chunk at a time, for deliveries spread over time (throttling).
final class ChunkSource: @unchecked Sendable {
    // Used by one delivery at a time: each chunk is taken in the step that schedules the next.
    private let data: Data?
    private let handle: FileHandle?
    private var offset = 0

    init(_ body: ResponseBody, rendered: Data?) throws {
        switch (rendered, body) {
        case (let rendered?, _): data = rendered; handle = nil
        case (nil, .inline(let d)), (nil, .json(let d)): data = d; handle = nil
        case (nil, .empty): data = Data(); handle = nil
        case (nil, .file(let url)): data = nil; handle = try FileHandle(forReadingFrom: url)
        }
    }

    deinit { try? handle?.close() }

    /// The next chunk of at most `size` bytes, or `nil` at the end.
    func next(_ size: Int) throws -> Data? {
        if let handle {
            let chunk = try handle.read(upToCount: size) ?? Data()
            return chunk.isEmpty ? nil : chunk
        }
        guard let data, offset < data.count else { return nil }
        let end = min(offset + size, data.count)
        defer { offset = end }
        return data.subdata(in: offset..<end)
    }
}
