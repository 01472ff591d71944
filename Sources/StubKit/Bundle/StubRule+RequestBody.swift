import Foundation

extension StubRule {
    /// Whether answering with this rule reads the request body: body conditions, or a template (of
    /// the response or of any response of its sequence) with a `{{body.…}}` placeholder.
    var looksAtRequestBody: Bool {
        if !request.body.isEmpty { return true }
        let responses = [response] + (sequence?.responses ?? [])
        return responses.contains { $0.template?.readsRequestBody == true }
    }
}

extension ResponseTemplates {
    /// Whether any part has a `{{body.…}}` placeholder.
    var readsRequestBody: Bool {
        body?.readsRequestBody == true || headers.values.contains { $0.readsRequestBody }
    }
}

extension ResponseTemplate {
    var readsRequestBody: Bool {
        parts.contains { if case .field(.body, _, _) = $0 { return true } else { return false } }
    }
}
