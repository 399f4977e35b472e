//! vzplan-plan
