import Foundation

/// RFC 3339 times in UTC with milliseconds, as every JSON body of the API carries them.
enum Timestamp {
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func rfc3339(_ date: Date) -> String { style.format(date) }
}
