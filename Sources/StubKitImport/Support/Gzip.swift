#if Tools
import CZlib
import Foundation

/// Decompression of gzip and zlib bodies that a HAR file or a cassette stored still encoded.
enum Gzip {
    /// Whether the bytes start with gzip's magic number.
    static func isGzip(_ data: Data) -> Bool {
        data.count >= 2 && data[data.startIndex] == 0x1f && data[data.startIndex + 1] == 0x8b
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Inflates gzip or zlib data (detected from the header); gzip members written one after another
    /// (`cat a.gz b.gz`, as `gzip -d` reads them) are inflated in turn and joined.
    ///
    /// - Parameter limit: the most bytes to inflate; more is refused as over the limit (a zip bomb).
    /// - Throws: ``Failure`` with zlib's message when the data is corrupt or truncated, or saying the
    ///   inflated size is over `limit`.
    static func decompress(_ data: Data, limit: Int = 1 << 30) throws(Failure) -> Data {
        var stream = z_stream()
        // 15 window bits + 32: detect a gzip or zlib header.
        guard inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure(description: "zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var output = Data()
        var status: Int32 = Z_OK
        var input = [UInt8](data)
        let chunk = 64 * 1024
        var buffer = [UInt8](repeating: 0, count: chunk)
        input.withUnsafeMutableBufferPointer { inputPointer in
            stream.next_in = inputPointer.baseAddress
            stream.avail_in = uInt(inputPointer.count)
            while true {
                repeat {
                    buffer.withUnsafeMutableBufferPointer { out in
                        stream.next_out = out.baseAddress
                        stream.avail_out = uInt(chunk)
                        status = inflate(&stream, Z_NO_FLUSH)
                        output.append(out.baseAddress!, count: chunk - Int(stream.avail_out))
                    }
                } while status == Z_OK && output.count <= limit && (stream.avail_in > 0 || stream.avail_out == 0)
                // Another gzip member follows: inflate it too.
                guard status == Z_STREAM_END, output.count <= limit, stream.avail_in >= 2,
                      stream.next_in[0] == 0x1f, stream.next_in[1] == 0x8b, inflateReset(&stream) == Z_OK else { break }
                status = Z_OK
            }
        }
        if output.count > limit {
            throw Failure(description: "it inflates to over the limit of \(limit) bytes")
        }
        guard status == Z_STREAM_END else {
            let reason = stream.msg.map { String(cString: $0) } ?? (status == Z_OK || status == Z_BUF_ERROR ? "the data ends early" : "zlib status \(status)")
            throw Failure(description: reason)
        }
        return output
    }
}
#endif
