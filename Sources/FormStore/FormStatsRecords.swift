import Foundation

/// A submission refused for its values: counted in the form's statistics as it happens.
public struct Rejection: Sendable, Equatable {
    public var formID: String
    /// When it was refused; counted on this day (UTC).
    public var at: Date
    /// The inputs that failed and how, each pair counted once (the caller folds repeat items together).
    public var failures: [FieldFailure]

    public init(formID: String, at: Date, failures: [FieldFailure]) {
        self.formID = formID
        self.at = at
        self.failures = failures
    }
}

/// One input's failure in a ``Rejection``: its path and the error code.
public struct FieldFailure: Sendable, Hashable {
    public var field: String
    public var code: String

    public init(field: String, code: String) {
        self.field = field
        self.code = code
    }
}

/// A day of a form's counters.
public struct FormStatsDay: Sendable, Equatable {
    /// Days since 1970-01-01, in UTC.
    public var day: Int
    public var submissions: Int
    public var rejected: Int
    public var draftsStarted: Int
    public var draftsSubmitted: Int

    public init(day: Int, submissions: Int = 0, rejected: Int = 0, draftsStarted: Int = 0, draftsSubmitted: Int = 0) {
        self.day = day
        self.submissions = submissions
        self.rejected = rejected
        self.draftsStarted = draftsStarted
        self.draftsSubmitted = draftsSubmitted
    }
}

/// A form's counters over a range of days.
public struct FormStats: Sendable, Equatable {
    /// The days of the range that have any count, oldest first.
    public var days: [FormStatsDay]
    /// Failures in the range by input path, then by code.
    public var rejections: [String: [String: Int]]

    public init(days: [FormStatsDay], rejections: [String: [String: Int]]) {
        self.days = days
        self.rejections = rejections
    }
}

extension Date {
    /// The UTC day this instant falls on, as days since 1970-01-01: the key of a form's daily counters.
    public var statsDay: Int {
        Int((timeIntervalSince1970 / 86_400).rounded(.down))
    }
}
