//! vzplan-emit
