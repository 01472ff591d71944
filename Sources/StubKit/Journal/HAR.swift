import Foundation

/// HAR 1.2 (the HTTP Archive format of browser developer tools, Charles and Proxyman), as StubKit
/// writes it (the journal's HAR, `stubkit export`) and reads it (`stubkit import`).
///
/// Encoding writes every field a writer set (optional ones only when set), keys sorted, so the same
/// values give the same bytes. Decoding reads only the parts the importer uses, leniently, as tools
/// differ: every field is optional, numbers may be strings, header values may be lists. A missing
/// one is reported per entry rather than failing the file.
package struct HAR: Codable, Sendable {
    package var log: Log

    package init(log: Log) { self.log = log }

    package struct Log: Codable, Sendable {
        package var version = "1.2"
        package var creator: Creator?
        package var pages: [Page]? = []
        package var entries: [Entry]
        package var comment: String?
        /// StubKit's own fields (custom fields start with an underscore in HAR).
        package var stubkit: LogExtras?

        package init(creator: Creator, entries: [Entry], comment: String? = nil, stubkit: LogExtras? = nil) {
            self.creator = creator
            self.entries = entries
            self.comment = comment
            self.stubkit = stubkit
        }

        enum CodingKeys: String, CodingKey { case version, creator, pages, entries, comment, stubkit = "_stubkit" }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            entries = try container.decode([Entry].self, forKey: .entries)
        }
    }

    package struct Creator: Codable, Sendable {
        package var name: String
        package var version: String
        package init(name: String, version: String) { self.name = name; self.version = version }
    }

    /// Pages are not written (StubKit's entries belong to none); the list is there, empty, as HAR requires.
    package struct Page: Codable, Sendable {}

    package struct LogExtras: Codable, Sendable {
        package var droppedEntries: Int
        package init(droppedEntries: Int) { self.droppedEntries = droppedEntries }
    }

    package struct Entry: Codable, Sendable {
        package var startedDateTime: String?
        /// Milliseconds.
        package var time: Double?
        package var request: Request?
        package var response: Response?
        package var cache: Cache? = Cache()
        package var timings: Timings?
        package var comment: String?
        /// What StubKit's journal knows about the entry (bundle, rule, near misses).
        package var stubkit: EntryExtras?
        /// A WebSocket's frames, as Chrome's developer tools export them.
        package var webSocketMessages: [WebSocketMessage]?
        /// The entry has a `_stubkit` object this version cannot read (another tool's, or a newer
        /// StubKit's): whether StubKit answered it is unknown, which is not the same as "not StubKit".
        package var stubkitUnreadable = false

        package init(startedDateTime: String, time: Double, request: Request, response: Response, comment: String? = nil, stubkit: EntryExtras? = nil) {
            self.startedDateTime = startedDateTime
            self.time = time
            self.request = request
            self.response = response
            self.timings = Timings(send: 0, wait: time, receive: 0)
            self.comment = comment
            self.stubkit = stubkit
        }

        enum CodingKeys: String, CodingKey { case startedDateTime, time, request, response, cache, timings, comment, stubkit = "_stubkit", webSocketMessages = "_webSocketMessages" }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            startedDateTime = try container.decodeIfPresent(String.self, forKey: .startedDateTime)
            request = try container.decodeIfPresent(Request.self, forKey: .request)
            response = try container.decodeIfPresent(Response.self, forKey: .response)
            webSocketMessages = try container.decodeIfPresent([WebSocketMessage].self, forKey: .webSocketMessages)
            // StubKit's own marks (stubbed or passed through); another tool's `_stubkit` is not ours to refuse.
            do { stubkit = try container.decodeIfPresent(EntryExtras.self, forKey: .stubkit) } catch { stubkitUnreadable = true }
        }
    }

    package struct Cache: Codable, Sendable {}

    package struct Timings: Codable, Sendable {
        package var send: Double
        package var wait: Double
        package var receive: Double
    }

    package struct Request: Codable, Sendable {
        package var method: String?
        package var url: String?
        package var httpVersion: String? = "HTTP/1.1"
        package var headers: [NameValue]?
        package var queryString: [NameValue]? = []
        package var cookies: [Cookie]? = []
        package var headersSize: Int? = -1
        package var bodySize: Int?
        package var postData: PostData?

        package init(method: String, url: String, headers: [NameValue], queryString: [NameValue], bodySize: Int, postData: PostData? = nil) {
            self.method = method
            self.url = url
            self.headers = headers
            self.queryString = queryString
            self.bodySize = bodySize
            self.postData = postData
        }

        enum CodingKeys: String, CodingKey { case method, url, httpVersion, headers, queryString, cookies, headersSize, bodySize, postData }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            method = try container.decodeIfPresent(String.self, forKey: .method)
            url = try container.decodeIfPresent(String.self, forKey: .url)
            headers = try container.decodeIfPresent([NameValue].self, forKey: .headers)
            bodySize = try? container.decodeIfPresent(Int.self, forKey: .bodySize)
            postData = try container.decodeIfPresent(PostData.self, forKey: .postData)
        }
    }

    /// Cookies are not written: they are in the `Cookie`/`Set-Cookie` headers already.
    package struct Cookie: Codable, Sendable {}

    package struct PostData: Codable, Sendable {
        package var mimeType: String?
        package var text: String?
        package var encoding: String?
        package var params: [NameValue]?
        package var comment: String?

        package init(mimeType: String, text: String, comment: String? = nil) {
            self.mimeType = mimeType
            self.text = text
            self.comment = comment
        }

        /// A request body as HAR text, by the same rule as ``Content``: UTF-8 as it is, anything else in
        /// base64 with `encoding` saying so (the importer reads it back as the bytes sent).
        package init(mimeType: String, body: Data, comment: String? = nil) {
            let content = Content(size: body.count, mimeType: mimeType, body: body)
            self.mimeType = mimeType
            self.text = content.text
            self.encoding = content.encoding
            self.comment = comment
        }

        enum CodingKeys: String, CodingKey { case mimeType, text, encoding, params, comment }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            mimeType = try? container.decodeIfPresent(String.self, forKey: .mimeType)
            text = try container.decodeIfPresent(String.self, forKey: .text)
            encoding = try container.decodeIfPresent(String.self, forKey: .encoding)
            params = try container.decodeIfPresent([NameValue].self, forKey: .params)
        }
    }

    package struct Response: Codable, Sendable {
        package var status: Number?
        package var statusText: String? = ""
        package var httpVersion: String? = "HTTP/1.1"
        package var headers: [NameValue]?
        package var cookies: [Cookie]? = []
        package var content: Content?
        package var redirectURL: String?
        package var headersSize: Int? = -1
        package var bodySize: Int?

        package init(status: Int, statusText: String, headers: [NameValue], content: Content, redirectURL: String, bodySize: Int) {
            self.status = Number(status)
            self.statusText = statusText
            self.headers = headers
            self.content = content
            self.redirectURL = redirectURL
            self.bodySize = bodySize
        }

        enum CodingKeys: String, CodingKey { case status, statusText, httpVersion, headers, cookies, content, redirectURL, headersSize, bodySize }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            status = try container.decodeIfPresent(Number.self, forKey: .status)
            headers = try container.decodeIfPresent([NameValue].self, forKey: .headers)
            content = try container.decodeIfPresent(Content.self, forKey: .content)
        }
    }

    package struct Content: Codable, Sendable {
        package var size: Number?
        package var mimeType: String?
        package var text: String?
        package var encoding: String?
        package var comment: String?

        /// The body as HAR text: UTF-8 as it is, anything else in base64.
        package init(size: Int, mimeType: String, body: Data?, comment: String? = nil) {
            self.size = Number(size)
            self.mimeType = mimeType
            if let body {
                if let text = String(data: body, encoding: .utf8) {
                    self.text = text
                } else {
                    self.text = body.base64EncodedString()
                    self.encoding = "base64"
                }
            }
            self.comment = comment
        }

        enum CodingKeys: String, CodingKey { case size, mimeType, text, encoding, comment }

        /// Reads what an importer uses; a `comment` that is not text (some tools write objects) is dropped
        /// rather than failing the whole file.
        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            size = try container.decodeIfPresent(Number.self, forKey: .size)
            mimeType = try container.decodeIfPresent(String.self, forKey: .mimeType)
            text = try container.decodeIfPresent(String.self, forKey: .text)
            encoding = try container.decodeIfPresent(String.self, forKey: .encoding)
            comment = try? container.decodeIfPresent(String.self, forKey: .comment)
        }
    }

    package struct NameValue: Codable, Sendable {
        package var name: String?
        package var value: String?

        package init(name: String, value: String) { self.name = name; self.value = value }

        enum CodingKeys: String, CodingKey { case name, value }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try? container.decode(String.self, forKey: .name)
            // Polly.JS writes repeated headers as a list of values; numbers appear too.
            if let text = try? container.decode(String.self, forKey: .value) { value = text }
            else if let list = try? container.decode([String].self, forKey: .value) { value = list.joined(separator: ", ") }
            else if let number = try? container.decode(Double.self, forKey: .value) { value = number == number.rounded() ? String(Int(number)) : String(number) }
            else if let flag = try? container.decode(Bool.self, forKey: .value) { value = String(flag) }
            else { value = nil }
        }
    }

    /// An integer written as a number; read from a number (`200`, `200.0`) or a numeric string, as tools differ.
    package struct Number: Codable, Sendable {
        package var value: Int?

        package init(_ value: Int) { self.value = value }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let int = try? container.decode(Int.self) { value = int }
            else if let double = try? container.decode(Double.self), double == double.rounded(), abs(double) < 1e9 { value = Int(double) }
            else if let text = try? container.decode(String.self) { value = Int(text) }
            else { value = nil }
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    /// The document as StubKit writes it: pretty-printed, keys sorted, slashes as they are.
    package func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data()
    }
}
