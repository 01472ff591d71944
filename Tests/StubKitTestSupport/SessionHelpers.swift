import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a data task returned, for assertions.
public struct TaskResult: @unchecked Sendable {
    public var data: Data?
    public var response: HTTPURLResponse?
    public var error: URLError?

    public var text: String? { data.map { String(decoding: $0, as: UTF8.self) } }
    public var status: Int? { response?.statusCode }

    /// The body parsed as a JSON object.
    public var json: [String: Any]? {
        data.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }
}

extension URLSession {
    /// Runs a data task (completion-handler style, as most apps do) and returns its outcome.
    public func result(_ method: String = "GET", _ url: String, body: String? = nil, headers: [String: String] = [:]) async -> TaskResult {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return await result(for: request)
    }

    /// Runs a data task for a prepared request (completion-handler style) and returns its outcome.
    public func result(for request: URLRequest) async -> TaskResult {
        await withCheckedContinuation { continuation in
            dataTask(with: request) { data, response, error in
                continuation.resume(returning: TaskResult(data: data, response: response as? HTTPURLResponse, error: error as? URLError))
            }.resume()
        }
    }
}
