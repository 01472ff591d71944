import Foundation

/// Waits for a condition that has no event of its own (an object being freed), by checking it
/// between yields until a deadline. Only for such conditions: anything that records an event (the
/// journal, a completion handler) is awaited on that event instead.
public enum Eventually {
    /// Whether `condition` became true within `seconds`.
    public static func becomesTrue(within seconds: TimeInterval, _ condition: @Sendable () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            await Task.yield()
        }
        return condition()
    }
}
