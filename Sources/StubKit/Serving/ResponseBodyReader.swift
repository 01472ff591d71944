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

    /// Calls `body` with each chunk in order; stops early when it returns false.
    func forEachChunk(size: Int, _ deliver: (Data) -> Bool) throws {
        switch body {
        case .empty:
            return
        case .inline(let data), .json(let data):
            if size == Int.max {
                if !data.isEmpty { _ = deliver(data) }
                return
            }
            var offset = 0
            while offset < data.count {
                let end = min(offset + size, data.count)
                guard deliver(data.subdata(in: offset..<end)) else { return }
                offset = end
            }
        case .file(let url) where size == Int.max:
            // One piece, mapped from the file rather than copied into memory.
            let data = try Data(contentsOf: url, options: .alwaysMapped)
            if !data.isEmpty { _ = deliver(data) }
        case .file(let url):
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            while true {
                let chunk = try autoreleasepool { try handle.read(upToCount: size) } ?? Data()
                if chunk.isEmpty { return }
                guard deliver(chunk) else { return }
            }
        }
    }
}

#if !canImport(ObjectiveC)
/// Linux has no autorelease pools; the call just runs the body.
@inline(__always)
func autoreleasepool<R>(invoking body: () throws -> R) rethrows -> R { try body() }
#endif
