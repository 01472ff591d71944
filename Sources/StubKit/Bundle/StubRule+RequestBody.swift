import Foundation

extension StubRule {
    /// Whether answering with this rule reads the request body: body conditions, a `graphql` condition
    /// (a POST's operation is in its body), or a template (of the response or of any response of its
    /// sequence) with a `{{body.…}}` or `{{graphql.…}}` placeholder.
    var looksAtRequestBody: Bool {
        if !request.body.isEmpty || request.graphQL != nil { return true }
        let responses = [response] + (sequence?.responses ?? [])
        return responses.contains { $0.template?.readsRequestBody == true }
    }
}

extension ResponseTemplates {
    /// Whether any part has a `{{body.…}}` or `{{graphql.…}}` placeholder.
    var readsRequestBody: Bool {
        body?.readsRequestBody == true || headers.values.contains { $0.readsRequestBody }
    }
}

extension ResponseTemplate {
    var readsRequestBody: Bool {
        parts.contains { part in
            switch part {
            case .field(.body, _, _), .field(.graphQL, _, _): return true
            default: return false
            }
        }
    }
}
