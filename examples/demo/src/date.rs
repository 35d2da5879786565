//! Calendar arithmetic on the proleptic Gregorian calendar.

/// Whether `year` is a leap year: divisible by 4, except centuries, except every 400 years.
pub fn is_leap_year(year: i32) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

/// Number of days in `month` (1 = January ... 12 = December) of `year`.
///
/// Returns `Err` for a month of 0 or above 12.
pub fn days_in_month(year: i32, month: u32) -> Result<u32, String> {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => Ok(31),
        4 | 6 | 9 | 11 => Ok(30),
        2 => Ok(if is_leap_year(year) { 29 } else { 28 }),
        _ => Err(format!("invalid month {month}")),
    }
}

/// The day after `year-month-day`, as `(year, month, day)`.
///
/// Validates the input date first: `Err` for an invalid month or a day of 0 or past the end of
/// the month. Rolls over to the next month and to the next year.
pub fn next_date(year: i32, month: u32, day: u32) -> Result<(i32, u32, u32), String> {
    let len = days_in_month(year, month)?;
    if day == 0 || day > len {
        return Err(format!("invalid day {day} for {year}-{month:02}"));
    }
    if day < len {
        Ok((year, month, day + 1))
    } else if month < 12 {
        Ok((year, month + 1, 1))
    } else {
        Ok((year + 1, 1, 1))
    }
}

/// Ordinal day of the year (1 for January 1st, 365 or 366 for December 31st).
///
/// Returns `Err` for an invalid date.
pub fn day_of_year(year: i32, month: u32, day: u32) -> Result<u32, String> {
    let len = days_in_month(year, month)?;
    if day == 0 || day > len {
        return Err(format!("invalid day {day} for {year}-{month:02}"));
    }
    let mut total = day;
    for m in 1..month {
        total += days_in_month(year, m)?;
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    // Gaps left on purpose (for abex to find):
    // - is_leap_year: no non-leap century (1900, 2100), so `year % 100 != 0` is unpinned.
    // - days_in_month: no month 13 (nor month 0), so the upper bound of the valid months is unpinned.
    // - next_date: no day 0, and no day past the end of a 30-day month (e.g. April 31st).
    // - day_of_year: no leap-year date after February, no invalid date.
    use super::*;

    #[test]
    fn leap_years() {
        assert!(is_leap_year(2024));
        assert!(is_leap_year(2000));
        assert!(!is_leap_year(2023));
    }

    #[test]
    fn month_lengths() {
        assert_eq!(days_in_month(2023, 1), Ok(31));
        assert_eq!(days_in_month(2023, 4), Ok(30));
        assert_eq!(days_in_month(2023, 2), Ok(28));
        assert_eq!(days_in_month(2024, 2), Ok(29));
    }

    #[test]
    fn next_day_rolls_over() {
        assert_eq!(next_date(2023, 5, 14), Ok((2023, 5, 15)));
        assert_eq!(next_date(2023, 1, 31), Ok((2023, 2, 1)));
        assert_eq!(next_date(2023, 12, 31), Ok((2024, 1, 1)));
        assert_eq!(next_date(2024, 2, 28), Ok((2024, 2, 29)));
        assert!(next_date(2023, 2, 29).is_err());
    }

    #[test]
    fn ordinal_days() {
        assert_eq!(day_of_year(2023, 1, 1), Ok(1));
        assert_eq!(day_of_year(2023, 3, 1), Ok(60));
        assert_eq!(day_of_year(2023, 12, 31), Ok(365));
    }
}
