import Foundation

/// A request body still in its `httpBodyStream`, read only as far as it is needed: the journal's share
/// first, the rest when the answer depends on the whole body (see ``StubLoad``). A stream can be read
/// once, so what was read is kept here. Used on one load's context only.
final class RequestBodyStream {
    private let stream: InputStream
    private var isOpen = false
    /// The bytes read so far.
    private(set) var data = Data()
    /// Whether the stream has ended, so ``data`` is the whole body.
    private(set) var ended = false

    init(_ stream: InputStream) {
        self.stream = stream
    }

    deinit {
        if isOpen { stream.close() }
    }

    /// Reads until the stream ends or more than `limit` bytes are held: at most `limit + 1` in all.
    /// A stream that fails half-way throws, rather than passing for a short body.
    func read(upTo limit: Int) throws {
        guard !ended, data.count <= limit else { return }
        if !isOpen {
            stream.open()
            isOpen = true
        }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while data.count <= limit {
            let count = stream.read(&buffer, maxLength: min(buffer.count, limit + 1 - data.count))
            if count == 0 {
                ended = true
                stream.close()
                isOpen = false
                return
            }
            if count < 0 {
                throw stream.streamError ?? URLError(.cannotDecodeRawData, userInfo: [NSLocalizedDescriptionKey: "the body stream failed after \(data.count) bytes"])
            }
            data.append(buffer, count: count)
        }
    }

    /// The whole body; one longer than `limit` throws ``StubURLProtocol/BodyTooLarge`` after reading at
    /// most `limit + 1` bytes.
    func whole(limit: Int = StubURLProtocol.maximumStreamedBodySize) throws -> Data {
        try read(upTo: limit)
        guard ended else { throw StubURLProtocol.BodyTooLarge(limit: limit) }
        return data
    }
}
