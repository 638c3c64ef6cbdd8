/// A form and a day of its counters.
package struct FormDay: Hashable, Sendable {
    package var formID: String
    package var day: Int

    package init(formID: String, day: Int) {
        self.formID = formID
        self.day = day
    }

    /// The day a row stored at `milliseconds` counts on (UTC), rounded down as ``Foundation/Date/statsDay``
    /// is: taken from the stored time, so a submission counts on the day its row says.
    package static func day(ofMilliseconds milliseconds: Int64) -> Int {
        let (quotient, remainder) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
        return Int(remainder < 0 ? quotient - 1 : quotient)
    }
}

/// A group's stored submissions per form and day, gathered as its rows go in, so that each form's day
/// is written once per group, not once per row.
package struct SubmissionTally: Sendable {
    package struct Entry: Sendable {
        package var formDay: FormDay
        package var submissions: Int
        package var draftsSubmitted: Int
    }

    /// In the order first seen. Searched linearly: a group usually holds one form on one day, and
    /// hashing every row's form id would cost more on the group-commit writer than the search.
    package private(set) var entries: [Entry] = []

    package init() {}

    /// Counts one stored submission of `formID` received at `receivedAtMilliseconds`, from a draft or not.
    package mutating func add(formID: String, receivedAtMilliseconds: Int64, fromDraft: Bool) {
        let day = FormDay.day(ofMilliseconds: receivedAtMilliseconds)
        let drafts = fromDraft ? 1 : 0
        if let index = entries.firstIndex(where: { $0.formDay.day == day && $0.formDay.formID == formID }) {
            entries[index].submissions += 1
            entries[index].draftsSubmitted += drafts
        } else {
            entries.append(Entry(formDay: FormDay(formID: formID, day: day), submissions: 1, draftsSubmitted: drafts))
        }
    }

    /// The stored submissions per form, all days together, in the order first seen.
    package var perForm: [(formID: String, count: Int)] {
        var forms: [(formID: String, count: Int)] = []
        for entry in entries {
            if let index = forms.firstIndex(where: { $0.formID == entry.formDay.formID }) {
                forms[index].count += entry.submissions
            } else {
                forms.append((entry.formDay.formID, entry.submissions))
            }
        }
        return forms
    }
}

/// A group of rejections counted per form and day, and per form, day, input and code, so that each
/// counter is written once per group.
package struct RejectionTally: Sendable {
    /// The failures counted of one rejection at most: a request cannot grow the failure counters
    /// without bound (a repeated section of thousands of items, each failing).
    package static let maxFailuresPerRejection = 100

    package struct Failure: Hashable, Sendable {
        package var formDay: FormDay
        package var failure: FieldFailure
    }

    package private(set) var rejected: [FormDay: Int] = [:]
    package private(set) var failures: [Failure: Int] = [:]

    /// Tallies the rejections for which `isCounted` holds of their form id.
    package init(_ rejections: [Rejection], isCounted: (String) throws -> Bool) rethrows {
        for rejection in rejections where try isCounted(rejection.formID) {
            let formDay = FormDay(formID: rejection.formID, day: rejection.at.statsDay)
            rejected[formDay, default: 0] += 1
            // Each pair once per rejection, whatever the caller passed.
            var seen = Set<FieldFailure>()
            for failure in rejection.failures where seen.insert(failure).inserted {
                failures[Failure(formDay: formDay, failure: failure), default: 0] += 1
                if seen.count == Self.maxFailuresPerRejection { break }
            }
        }
    }
}
