extension Duration {
    /// The duration in whole milliseconds, rounded toward zero: what libcurl's timeouts take and what
    /// an attempt's duration is stored as.
    var wholeMilliseconds: Int {
        Int(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000)
    }
}
