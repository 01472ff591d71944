#if Tools
import Foundation
import StubKit

/// A rule's dictionary in its rules file (or one item of its `responses`), to locate keys (for the OpenAPI and GraphQL checks).
package struct RuleTree: Sendable {
    package var value: SourceValue?
    package var keyPath: String

    package init(root: SourceValue?, source: RuleSource) {
        keyPath = source.keyPath
        let list = root?.arrayValue ?? root?[RuleKey.rules.rawValue]?.arrayValue
        value = list.flatMap { source.index < $0.count ? $0[source.index] : nil }
    }

    private init(value: SourceValue?, keyPath: String) {
        self.value = value
        self.keyPath = keyPath
    }

    /// The `responses` item `i`.
    package func item(_ i: Int) -> RuleTree {
        let items = value?[RuleKey.responses.rawValue]?.arrayValue
        return RuleTree(value: items.flatMap { i < $0.count ? $0[i] : nil }, keyPath: "\(keyPath(of: .responses))[\(i)]")
    }

    package var position: SourcePosition? { value?.position }

    /// The key path of `key` in this rule (`rules[2].status`).
    package func keyPath(of key: RuleKey) -> String { "\(keyPath).\(key.rawValue)" }

    package func has(_ key: RuleKey) -> Bool { value?[key.rawValue] != nil }

    package func value(of key: RuleKey) -> SourceValue? { value?[key.rawValue] }

    /// Where the first of `keys` that the rule writes has its value.
    package func position(of keys: [RuleKey]) -> SourcePosition? {
        for key in keys { if let found = value?[key.rawValue] { return found.position } }
        return nil
    }
}
#endif
