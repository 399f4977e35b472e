//! vzplan-netcdf3
